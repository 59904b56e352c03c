"""Driving the rg binary: finding it, knowing its flags, reading an rg command line,
listing the files rg would search, running rg over files in a given order, and the one
counting walk of the PATHs that may serve that order's counts."""

"""Driving the rg binary: finding it, knowing its flags, reading an rg command line,
listing the files rg would search, and running rg over files in a given order."""

"""The command line: the console entry (pass-through exec of rg), splitting rrg's options
from rg's, the option table, and one function per command. Wires the other layers only."""

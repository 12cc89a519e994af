import sys

# what a hostile bot writes to its log: a new window title, a cleared screen, colours,
# reversed text; its crash puts more of the same in the exception the checks show
print("\x1b]0;pwned\x07\x1b[2J\x1b[31mred\u202eevil", file=sys.stderr)
raise RuntimeError("boom \x1b[1mbold\x1b[0m \x9b31m")

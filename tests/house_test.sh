#!/bin/sh
# house_test.sh: the house rules of src/ (tests/house.py: layers one way, the core on its
# own, no two modules including each other, knobs per layer, no file over 1,000 lines).
exec python3 "${srcdir:-.}/tests/house.py" "${srcdir:-.}"

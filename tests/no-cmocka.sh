#!/bin/sh
# Unit tests need cmocka: fail loudly rather than pass without them.
echo "cmocka not found at configure time: apt-get install libcmocka-dev and re-run configure" >&2
exit 1

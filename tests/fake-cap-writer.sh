#!/bin/sh
# A fake cap writer for tests (TB_CAP_WRITER points at it), called as `sudo -n /usr/bin/tee
# PATH` is: the value on stdin, written to PATH. Each call is appended to $FAKE_CAP_LOG as
# "PATH VALUE". FAKE_CAP_FAULT=refuse: says what sudo says without its sudoers line, exits 1
# and writes nothing. FAKE_CAP_FAULT=banana: writes "banana" (a file that reads, holding no
# clock).
v=$(cat)
[ -n "$FAKE_CAP_LOG" ] && echo "$1 $v" >> "$FAKE_CAP_LOG"
if [ "$FAKE_CAP_FAULT" = refuse ]; then
    echo "sudo: a password is required"
    exit 1
fi
if [ "$FAKE_CAP_FAULT" = banana ]; then
    echo banana > "$1"
    exit 0
fi
printf '%s\n' "$v" > "$1"

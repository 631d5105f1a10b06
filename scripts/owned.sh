# owned.sh: sourced by scripts/dist.sh and scripts/kernel-images.sh, the one test both use
# before they share a folder between builds (zig's cache, the build folder, the image cache).
# owned PATH: PATH is this user's, no link, writable by no one else (group or other), so that
# no other user could have planted what it holds.
owned() {
    [ ! -L "$1" ] && [ -n "$(find "$1" -maxdepth 0 -user "$(id -u)" ! -perm /022 -print 2>/dev/null)" ]
}

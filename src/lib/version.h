/* version.h: what `--version`, the log's header and INSTALL say a build is made of: its
 * revision (beyond TB_VERSION, the Makefile's -D flag) and the kernel images' checksum. Not
 * the images themselves (cuda/images.h). */
#ifndef TB_VERSION_H
#define TB_VERSION_H

/* sha256 (64 hex digits) of the embedded kernel images, raw, concatenated in table order
 * (scripts/kernel-images.sh; its images.sha256 lists each), or "none" for a build without
 * images (CUDA=0). Two builds with this checksum run the same kernel code. */
extern const char tb_images_sha256[];

/* The git revision the build was made from ("1a2b3c4d5e6f", "...-dirty", or "none: not a git
 * checkout"), and "VERSION (git REVISION)" as the log's header says it: in the Makefile's
 * generated $(BUILD)/version_rev.c, so that a commit rebuilds that file alone. */
extern const char tb_git_rev[];
extern const char tb_version_line[];
/* The build's date, seconds since 1970 UTC: its commit's (the Makefile's BUILD_EPOCH, else
 * SOURCE_DATE_EPOCH), 0 unknown. A clock before it is wrong (lib/buildclock.h). */
extern const long long tb_build_epoch;

#endif

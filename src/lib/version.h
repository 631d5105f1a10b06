/* version.h: what `--version` and INSTALL say a build is made of, beyond TB_VERSION and
 * TB_GIT_REV (the Makefile's -D flags): the kernel images' checksum. Not the images themselves
 * (cuda/images.h). */
#ifndef TB_VERSION_H
#define TB_VERSION_H

/* sha256 (64 hex digits) of the embedded kernel images, raw, concatenated in table order
 * (scripts/kernel-images.sh; its images.sha256 lists each), or "none" for a build without
 * images (CUDA=0). Two builds with this checksum run the same kernel code. */
extern const char tb_images_sha256[];

#endif

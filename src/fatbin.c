/* fatbin.c: the kernel images, embedded in the executable. nvcc compiles the kernels into
 * one fatbin (Makefile); the assembler's .incbin puts its bytes between tb_fatbin and
 * tb_fatbin_end, with no tool beyond the C compiler. Without nvcc (or with CUDA=0) the
 * two symbols coincide and the CUDA backend says it has no images. */
#define TB_STR2(x) #x
#define TB_STR(x) TB_STR2(x)
#ifdef TB_FATBIN
#define TB_FATBIN_BYTES ".incbin \"" TB_STR(TB_FATBIN) "\"\n"
#else
#define TB_FATBIN_BYTES ""
#endif

/* 64-byte aligned, as cuModuleLoadData wants a fatbin's header aligned. */
__asm__(".section .rodata\n"
        ".balign 64\n"
        ".globl tb_fatbin\n"
        "tb_fatbin:\n" TB_FATBIN_BYTES
        ".globl tb_fatbin_end\n"
        "tb_fatbin_end:\n"
        ".byte 0\n"
        ".previous\n");

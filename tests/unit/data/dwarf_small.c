/* Built into dwarf_small_{x86_64,s390x}.elf (tests/unit/dwarf_source_test.cpp reads them):
 *   gcc -g -O2 -ffreestanding -nostdlib -static -fno-asynchronous-unwind-tables -Wl,-e,entry
 * One function inlined into another twice, a noinline callee and an untyped assembly label. */
static inline int add(int a, int b) { return a * b + 3; }

__attribute__((noinline)) int compute(int x)
{
	if (x > 3)
		return add(x, 2) + add(x, 5);
	return x;
}

__asm__(".text\n.globl asm_label\nasm_label:\n\tnop\n\tnop\n");

void entry(void)
{
	volatile int r = compute(7);
	(void)r;
	for (;;)
		;
}

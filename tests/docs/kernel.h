/* What the documentation's C examples take from the kernel around them: its console, its stack
 * bounds, the names a snippet uses without declaring. tests/docs/check.py puts this before every
 * example it compiles, and links kernel.c's definitions with it. Declarations only: an example
 * that names something else the kernel would not have fails to compile. */
#ifndef DOCS_KERNEL_H
#define DOCS_KERNEL_H

#include <sfu/sframe.h>
#include <sfu/print.h>
#include <sfu/unwind.h>

int printk(const char *fmt, ...);
void uart_putc(char c);

/* x86_64's saved registers, as the README's trap handler reads them. */
struct pt_regs {
  uint64_t rip, rsp, rbp;
};
uint64_t exception_stack_lo(void);
uint64_t exception_stack_hi(void);
uint64_t current_task_stack_lo(void);
uint64_t current_task_stack_hi(void);

extern char _stext[], _etext[];

/* The inputs of snippets that show one call: a PC, a module's sections, the console. */
extern uint64_t pc;
extern const unsigned char *sframe, *syms, *note;
extern size_t sframe_size, syms_size, note_size;
extern struct sfu_module module;
extern struct sfu_sink console;
extern struct sfu_walk_config walk_config;

#endif

/* Definitions for tests/docs/kernel.h: the documentation's examples are linked against these, a
 * linker script from the documentation, the linker fragments and libsfu.a. Never run. */
#include "kernel.h"

int printk(const char *fmt, ...) { return fmt != 0; }
void uart_putc(char c) { (void)c; }
uint64_t exception_stack_lo(void) { return 0x1000; }
uint64_t exception_stack_hi(void) { return 0x2000; }
uint64_t current_task_stack_lo(void) { return 0x3000; }
uint64_t current_task_stack_hi(void) { return 0x4000; }

uint64_t pc;
const unsigned char *sframe, *syms, *note;
size_t sframe_size, syms_size, note_size;
struct sfu_module module;
static void console_write(void *ctx, char c) { (void)ctx; uart_putc(c); }
struct sfu_sink console = { console_write, 0 };
struct sfu_walk_config walk_config;

void _start(void) {}

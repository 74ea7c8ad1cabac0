/* tinyk x86_64 traps: the IDT, and the #UD handler that prints the backtrace. */
#include "kernel.h"

struct trap_frame { /* as entry.S saves it, lowest address first */
  uint64_t r15, r14, r13, r12, r11, r10, r9, r8, rdi, rsi, rbp, rbx, rdx, rcx, rax;
  uint64_t vector, error;
  uint64_t rip, cs, rflags, rsp, ss; /* pushed by the CPU */
};

struct idt_gate {
  uint16_t offset_lo, selector;
  uint8_t ist, type;
  uint16_t offset_mid;
  uint32_t offset_hi, reserved;
};

static struct idt_gate idt[32];
extern char x86_ud_entry[], x86_unexpected_entry[], kstack_lo[], kstack_hi[];

static void set_gate(int vector, const void *entry) {
  uint64_t a = (uint64_t)entry;
  idt[vector] = (struct idt_gate){(uint16_t)a, 0x08, 0, 0x8e, (uint16_t)(a >> 16),
                                  (uint32_t)(a >> 32), 0};
}

void x86_trap_init(void) {
  for (int v = 0; v < 32; v++) set_gate(v, x86_unexpected_entry);
  set_gate(6, x86_ud_entry); /* #UD */
  struct __attribute__((packed)) {
    uint16_t limit;
    uint64_t base;
  } idtr = {sizeof(idt) - 1, (uint64_t)idt};
  __asm__ volatile("lidt %0" ::"m"(idtr));
}

/* porting.md: x86_64-trap-regs begin */
/* sfunwind numbers registers as DWARF does (rax rdx rcx rbx rsi rdi rbp rsp r8..r15). A walk
 * needs the PC, the interrupted RSP (the one the CPU pushed, not the handler's) and RBP; the
 * rest is given because we have it. */
static void trap_frame_to_sfu_regs(const struct trap_frame *tf, struct sfu_regs *regs) {
  const uint64_t dwarf_order[16] = {tf->rax, tf->rdx, tf->rcx, tf->rbx, tf->rsi, tf->rdi,
                                    tf->rbp, tf->rsp, tf->r8,  tf->r9,  tf->r10, tf->r11,
                                    tf->r12, tf->r13, tf->r14, tf->r15};
  regs->pc = tf->rip;
  for (int i = 0; i < 16; i++) regs->r[i] = dwarf_order[i];
  regs->valid = 0xffffu;
}

/* One stack: the kernel's; the trap frame sits on it too, below the interrupted frames. */
static void x86_walk_config(struct sfu_stack *stack, struct sfu_walk_config *config) {
  *stack = (struct sfu_stack){(uint64_t)kstack_lo, (uint64_t)kstack_hi, SFU_STACK_TASK};
  *config = (struct sfu_walk_config){.stacks = stack, .num_stacks = 1};
}
/* porting.md: x86_64-trap-regs end */

void x86_trap(struct trap_frame *tf) {
  struct sfu_regs regs;
  struct sfu_stack stack;
  struct sfu_walk_config config;
  trap_frame_to_sfu_regs(tf, &regs);
  x86_walk_config(&stack, &config);
  panic_with_backtrace("invalid opcode (#UD)", &regs, &config);
}

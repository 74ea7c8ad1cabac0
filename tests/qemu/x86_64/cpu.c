/* The CPU's tables: the GDT with a TSS (whose IST slots give the double fault, the timer and
 * NMIs stacks of their own), the IDT over vectors.S's stubs, and the guard pages. The legacy
 * PIC is moved off the exception vectors and masked: the local APIC (apic.c) gives the timer. */
#include "x86.h"

struct tss {
  uint32_t reserved0;
  uint64_t rsp[3];
  uint64_t reserved1;
  uint64_t ist[7]; /* ist[0] is IST1 */
  uint64_t reserved2;
  uint16_t reserved3;
  uint16_t iomap_base;
} __attribute__((packed));

struct idt_gate {
  uint16_t offset_low, selector;
  uint8_t ist, type;
  uint16_t offset_mid;
  uint32_t offset_high, reserved;
} __attribute__((packed));

struct table_pointer {
  uint16_t limit;
  uint64_t base;
} __attribute__((packed));

#define GATE_INTERRUPT 0x8e /* present, DPL 0, 64-bit interrupt gate: IF cleared on entry */
#define TSS_AVAILABLE 0x89  /* present, 64-bit TSS */

extern char vector_stubs[];  /* vectors.S: 16 bytes per vector */
extern uint64_t pt_low[512]; /* boot.S: the 4 KiB pages of the first 2 MiB */

static struct tss tss;
static uint64_t gdt[5];
static struct idt_gate idt[256];

static void pic_disable(void) {
  /* Both 8259s initialized with vectors 0x20-0x2f (off the exceptions), then masked. */
  outb(0x20, 0x11);
  outb(0xa0, 0x11);
  outb(0x21, 0x20);
  outb(0xa1, 0x28);
  outb(0x21, 0x04);
  outb(0xa1, 0x02);
  outb(0x21, 0x01);
  outb(0xa1, 0x01);
  outb(0x21, 0xff);
  outb(0xa1, 0xff);
}

static void gdt_init(void) {
  uint64_t base = (uint64_t)(uintptr_t)&tss, limit = sizeof(tss) - 1;
  tss.ist[IST_DF - 1] = (uint64_t)(uintptr_t)(df_stack + DF_STACK_SIZE);
  tss.ist[IST_IRQ - 1] = (uint64_t)(uintptr_t)(irq_stack + IRQ_STACK_SIZE);
  tss.ist[IST_NMI - 1] = (uint64_t)(uintptr_t)(nmi_stack + NMI_STACK_SIZE);
  tss.iomap_base = sizeof(tss); /* no I/O bitmap */
  gdt[0] = 0;
  gdt[KERNEL_CS / 8] = 0x00af9a000000ffffull; /* as boot.S's */
  gdt[KERNEL_DS / 8] = 0x00cf92000000ffffull;
  gdt[TSS_SEL / 8] = (limit & 0xffff) | ((base & 0xffffff) << 16) |
                     ((uint64_t)TSS_AVAILABLE << 40) | ((limit >> 16) << 48) |
                     (((base >> 24) & 0xff) << 56);
  gdt[TSS_SEL / 8 + 1] = base >> 32;
  struct table_pointer p = {sizeof(gdt) - 1, (uint64_t)(uintptr_t)gdt};
  __asm__ volatile("lgdt %0" ::"m"(p) : "memory");
  __asm__ volatile("ltr %w0" ::"r"(TSS_SEL));
}

static unsigned ist_for(unsigned vector) {
  switch (vector) {
    case VEC_DF:
      return IST_DF;
    case VEC_NMI:
      return IST_NMI;
    case VEC_TIMER:
      return IST_IRQ;
    default:
      return 0; /* on the stack the CPU was on */
  }
}

static void idt_init(void) {
  for (unsigned v = 0; v < 256; v++) {
    uint64_t at = (uint64_t)(uintptr_t)(vector_stubs + 16 * v);
    idt[v] = (struct idt_gate){.offset_low = (uint16_t)at,
                               .selector = KERNEL_CS,
                               .ist = (uint8_t)ist_for(v),
                               .type = GATE_INTERRUPT,
                               .offset_mid = (uint16_t)(at >> 16),
                               .offset_high = (uint32_t)(at >> 32)};
  }
  struct table_pointer p = {sizeof(idt) - 1, (uint64_t)(uintptr_t)idt};
  __asm__ volatile("lidt %0" ::"m"(p) : "memory");
}

void cpu_init(void) {
  pic_disable();
  gdt_init();
  idt_init();
}

/* The other CPUs (the smp kernel): each its own TSS (a TSS descriptor is busy once loaded, and
 * the IST slots are per CPU) in its own GDT, the one IDT. */
static struct tss cpu_tss[X86_MAX_CPUS];
static uint64_t cpu_gdt[X86_MAX_CPUS][5];

void cpu_init_secondary(unsigned cpu, const struct x86_cpu_stacks *s) {
  struct tss *t = &cpu_tss[cpu % X86_MAX_CPUS];
  uint64_t *g = cpu_gdt[cpu % X86_MAX_CPUS];
  uint64_t base = (uint64_t)(uintptr_t)t, limit = sizeof(*t) - 1;
  t->ist[IST_DF - 1] = (uint64_t)(uintptr_t)(s->df + DF_STACK_SIZE);
  t->ist[IST_IRQ - 1] = (uint64_t)(uintptr_t)(s->irq + IRQ_STACK_SIZE);
  t->ist[IST_NMI - 1] = (uint64_t)(uintptr_t)(s->nmi + NMI_STACK_SIZE);
  t->iomap_base = sizeof(*t);
  for (unsigned i = 0; i < 3; i++) g[i] = gdt[i];
  g[TSS_SEL / 8] = (limit & 0xffff) | ((base & 0xffffff) << 16) | ((uint64_t)TSS_AVAILABLE << 40) |
                   ((limit >> 16) << 48) | (((base >> 24) & 0xff) << 56);
  g[TSS_SEL / 8 + 1] = base >> 32;
  struct table_pointer gp = {sizeof(cpu_gdt[0]) - 1, (uint64_t)(uintptr_t)g};
  __asm__ volatile("lgdt %0" ::"m"(gp) : "memory");
  __asm__ volatile("ltr %w0" ::"r"(TSS_SEL));
  struct table_pointer ip = {sizeof(idt) - 1, (uint64_t)(uintptr_t)idt};
  __asm__ volatile("lidt %0" ::"m"(ip) : "memory");
}

/* Clears one 4 KiB mapping; only the first 2 MiB (pt_low) has them. */
static void unmap_page(uint64_t addr) {
  if (addr >= 512 * 4096) {
    kputs("sfu-error unmap_page: only the first 2 MiB has 4 KiB pages\n");
    kernel_done(1);
  }
  pt_low[addr >> 12] = 0;
  __asm__ volatile("invlpg (%0)" ::"r"(addr) : "memory");
}

void stacks_init(void) {
  uint8_t *stacks[] = {task_stack, irq_stack, df_stack, nmi_stack, small_stack};
  for (unsigned i = 0; i < sizeof(stacks) / sizeof(stacks[0]); i++)
    unmap_page((uint64_t)(uintptr_t)stacks[i] - 4096);
}

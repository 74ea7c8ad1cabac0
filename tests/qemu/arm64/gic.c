/* Just enough GICv2 (QEMU virt with gic-version=2) for one private timer interrupt: no security
 * extensions, everything in group 0, signalled as IRQ. */
#include "arm64.h"

#define GICD_BASE 0x08000000ul
#define GICD_CTLR 0x000
#define GICD_IGROUPR(n) (0x080 + 4 * (n))
#define GICD_ISENABLER(n) (0x100 + 4 * (n))
#define GICD_SGIR 0xf00
#define GICD_IPRIORITYR(n) (0x400 + 4 * (n))
#define GICC_BASE 0x08010000ul
#define GICC_CTLR 0x000
#define GICC_PMR 0x004
#define GICC_IAR 0x00c
#define GICC_EOIR 0x010

void gic_init(void) {
  /* Group 0 on; group 1 stays as another CPU's gic_fiq_init may have set it. */
  mmio_write32(GICD_BASE + GICD_CTLR, mmio_read32(GICD_BASE + GICD_CTLR) | 1);
  mmio_write32(GICC_BASE + GICC_PMR, 0xff); /* let every priority through */
  mmio_write32(GICC_BASE + GICC_CTLR, 1);
}

void gic_enable_ppi(unsigned intid) {
  uint64_t prio = GICD_BASE + GICD_IPRIORITYR(intid / 4);
  unsigned shift = 8 * (intid % 4);
  mmio_write32(prio, (mmio_read32(prio) & ~(0xffu << shift)) | (0x80u << shift));
  mmio_write32(GICD_BASE + GICD_ISENABLER(intid / 32), 1u << (intid % 32));
}

void gic_fiq_init(unsigned sgi) {
  /* GICv2 without security extensions still has groups (QEMU: revision 2). */
  mmio_write32(GICD_BASE + GICD_IGROUPR(0), ~(1u << sgi));
  uint64_t prio = GICD_BASE + GICD_IPRIORITYR(sgi / 4);
  unsigned shift = 8 * (sgi % 4);
  mmio_write32(prio, (mmio_read32(prio) & ~(0xffu << shift)) | (0x40u << shift));
  mmio_write32(GICD_BASE + GICD_ISENABLER(0), 1u << sgi);
  mmio_write32(GICD_BASE + GICD_CTLR, 3);     /* both groups */
  mmio_write32(GICC_BASE + GICC_CTLR, 0xf);   /* EnableGrp0, EnableGrp1, AckCtl, FIQEn */
}

void gic_send_sgi_self(unsigned sgi) {
  mmio_write32(GICD_BASE + GICD_SGIR, (2u << 24) | sgi); /* TargetListFilter 2: this CPU */
}

uint32_t gic_ack(void) { return mmio_read32(GICC_BASE + GICC_IAR); }

void gic_eoi(uint32_t iar) { mmio_write32(GICC_BASE + GICC_EOIR, iar); }

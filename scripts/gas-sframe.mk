# Whether a compiler's assembler writes SFrame, for the Makefile (the library's own table) and
# sfu.mk (a kernel's). gas 2.40 takes --gsframe for every target but refuses it, at the first CFI
# directive, where it has no SFrame support (s390x before 2.45): so the probe assembles one.
# $(call sfu_gas_writes_sframe,GCC): "yes" or empty.
sfu_gas_writes_sframe = $(shell printf '.cfi_startproc\n.cfi_endproc\n' | \
	$(1) $(SFU_GSFRAME_FLAG) -c -x assembler - -o /dev/null 2>/dev/null && echo yes)
SFU_GSFRAME_FLAG := -Wa,--gsframe

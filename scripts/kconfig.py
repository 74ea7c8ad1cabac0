#!/usr/bin/python3
"""Kconfig front end for the Makefile: writes the config header from .config or, with no
.config, from the Kconfig defaults; and runs kconfiglib's defconfig/menuconfig/olddefconfig.

usage: kconfig.py header KCONFIG CONFIG OUT.h     (CONFIG "-": the defaults, whatever exists)
       kconfig.py defconfig|olddefconfig|menuconfig KCONFIG CONFIG
"""
import os
import sys

import kconfiglib


def load(kconfig, config):
    kconf = kconfiglib.Kconfig(kconfig, warn_to_stderr=True)
    if config != "-" and os.path.exists(config):
        kconf.load_config(config)
    return kconf


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    cmd, kconfig, config = sys.argv[1:4]
    if cmd == "header":
        kconf = load(kconfig, config)
        out = sys.argv[4]
        # A name of its own: parallel makes (one per architecture) may write the header at once,
        # and os.replace of a finished file is atomic.
        tmp = "%s.%d.tmp" % (out, os.getpid())
        kconf.write_autoconf(tmp, header="/* Generated from Kconfig by scripts/kconfig.py. Do not edit. */\n")
        # Only touch the header when it changes, so make does not rebuild everything.
        if os.path.exists(out) and open(out).read() == open(tmp).read():
            os.remove(tmp)
        else:
            os.replace(tmp, out)
    elif cmd == "defconfig":
        kconf = kconfiglib.Kconfig(kconfig)
        print(kconf.write_config(config))
    elif cmd == "olddefconfig":
        kconf = load(kconfig, config)
        print(kconf.write_config(config))
    elif cmd == "menuconfig":
        import menuconfig
        os.environ["KCONFIG_CONFIG"] = config
        menuconfig.menuconfig(load(kconfig, config))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check that section garbage collection dropped nothing a table needs.

    size-tables.py REFERENCE.map GC.map

REFERENCE.map is the System.map of a kernel linked without
LD_DEAD_CODE_DATA_ELIMINATION, GC.map that of the same source and
configuration linked with it.  The linker keeps a section only when
something refers to it, but the kernel walks many tables (initcalls,
__setup, KUnit suites, processor records, patch sites...) only through
the symbols around them: an entry whose section lacks a KEEP() vanishes
without a link error, and the kernel silently does less.

Two checks, each printed as it goes; the exit status is 1 when either
finds something, or when GC.map lacks no symbol of REFERENCE.map at all
(nothing was collected: the option did not take, or the maps are of the
same link, and the checks would pass for nothing):

  * every named table entry of REFERENCE.map (initcalls, __setup, OF
    match and machine records, ATAG parsers, x86's CPU vendor and APIC
    driver records and brk reservations) must still be in GC.map;
  * every table delimited by a pair of symbols (__start_X/__stop_X,
    X_begin/X_end, __X_start/__X_end, and x86's __X/__X_end and
    __brk_base/__brk_limit) must have the same size in both:
    the entries are pointers or records of fixed size, so a table that
    shrank lost entries.  Pairs that delimit code or the whole image
    (text, data, init, rodata, bss) or the unwind tables of code shrink
    by design and are left out.
"""

import re
import sys

# Pairs that bound code or whole regions, not tables of entries.
REGION_RE = re.compile(r'text|_data|^__init$|^__init_|^_s|^_e|rodata|bss|'
                       r'^__kernel$|^__per_cpu|^__hyp|^__exception|'
                       r'^__tcm|^__vectors|^__stubs|^__turn_mmu_on|'
                       r'^unwind_|^notes$')

# Named entries of tables: initcalls, __setup, OF match and machine
# records, ATAG parsers; on x86 the CPU vendor and APIC driver records
# and the brk reservations (RESERVE_BRK), which nothing refers to.
ENTRY_RE = re.compile(r'^__initcall_|^__setup_|^__of_table_|^__mach_desc_|'
                      r'^__tagtable_|^__cpu_dev_|^__apicdrivers_|^__brk_')


# An initcall's name carries __COUNTER__ and __LINE__ of its definition,
# which a patch elsewhere in the file changes: compare without them.
KMOD_RE = re.compile(r'^(__initcall__kmod_\w+?)__\d+_\d+_')


def read_map(path):
    syms = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 3:
                syms[KMOD_RE.sub(r'\1_', parts[2])] = int(parts[0], 16)
    return syms


def tables(syms):
    out = {}
    for name, addr in syms.items():
        for start, stop in ((r'^__start_(.+)$', r'__stop_\1'),
                            (r'^(__.+)_begin$', r'\1_end'),
                            (r'^(__.+)_start$', r'\1_end'),
                            (r'^(__.+_table)$', r'\1_end'),
                            (r'^(__sched_class)_highest$',
                             r'\1_lowest'),
                            # x86: __alt_instructions, __smp_locks, ...
                            (r'^(__.+)$', r'\1_end'),
                            (r'^(__brk)_base$', r'\1_limit')):
            if not re.match(start, name):
                continue
            end = re.sub(start, stop, name)
            key = re.sub(start, r'\1', name)
            if end in syms and syms[end] >= addr and \
               not REGION_RE.search(key):
                out[key] = syms[end] - addr
    return out


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    ref, gc = read_map(sys.argv[1]), read_map(sys.argv[2])
    bad = 0

    collected = len(set(ref) - set(gc))
    print('size-tables: %d of %d symbols collected' % (collected, len(ref)))
    if not collected:
        print('size-tables: nothing collected: was GC.map linked with '
              'LD_DEAD_CODE_DATA_ELIMINATION?')
        bad += 1

    entries = sorted(n for n in ref if ENTRY_RE.match(n))
    gone = [n for n in entries if n not in gc]
    for n in gone:
        print('size-tables: entry dropped: %s' % n)
    print('size-tables: %d table entries (%d initcalls), %d dropped' %
          (len(entries), sum(1 for n in entries if 'initcall' in n),
           len(gone)))
    bad += len(gone)

    rt, gt = tables(ref), tables(gc)
    for key in sorted(rt):
        if key not in gt:
            print('size-tables: table %s: %d bytes, missing' % (key, rt[key]))
            bad += 1
        elif gt[key] != rt[key]:
            print('size-tables: table %s: %d bytes, %d with gc' %
                  (key, rt[key], gt[key]))
            bad += 1
    print('size-tables: %d tables, %d differ' %
          (len(rt), sum(1 for k in rt if gt.get(k) != rt[k])))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())

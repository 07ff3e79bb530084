#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""corrupt.py IMAGE WHAT: damage an SFFS image in one known way, for the
tests of fsck.sffs.  The damaged node is sealed again (checksums right),
so only the checks of what its fields mean can find it.

  nlink      the regular file with two names gets a link count of 3
  unlinked   a regular file with one name gets a link count of 0, and
             no orphan record
  dangling   the entry "size1" names an inode that does not exist
  hash       the entry "size1" is renamed "size2" under the old hash
  dirnames   the entry "fifo" names the directory "dir" a second time
  space      every checkpoint counts 4096 more free bytes
"""
import struct
import sys

MAGIC = 0x53464653
T_CP, T_INODE, T_DENTRY = 1, 2, 4


def crc32c(data, crc=0xffffffff):
    table = crc32c.table
    for b in data:
        crc = table[(crc ^ b) & 0xff] ^ (crc >> 8)
    return crc


crc32c.table = []
for i in range(256):
    x = i
    for _ in range(8):
        x = (x >> 1) ^ 0x82f63b78 if x & 1 else x >> 1
    crc32c.table.append(x)


def nodes(img):
    """(offset, type, length) of every node with a valid header"""
    off = 0
    while off + 32 <= len(img):
        magic, hcrc, _, length, _, ntype = struct.unpack_from('<IIQIIB', img, off)
        if magic == MAGIC and hcrc == crc32c(img[off + 8:off + 32]) and \
           32 <= length <= len(img) - off:
            yield off, ntype, length
            off += (length + 7) & ~7
        else:
            off += 8


def seal(img, off, length):
    struct.pack_into('<I', img, off + 20, crc32c(img[off + 32:off + length]))
    struct.pack_into('<I', img, off + 4, crc32c(img[off + 8:off + 32]))


def dentry(img, off):
    target, dtype, _, nlen = struct.unpack_from('<QBBH', img, off + 48)
    return target, dtype, bytes(img[off + 64:off + 64 + nlen])


def main():
    path, what = sys.argv[1], sys.argv[2]
    img = bytearray(open(path, 'rb').read())
    found = list(nodes(img))
    done = 0
    inodes = {struct.unpack_from('<Q', img, o + 32)[0]: o
              for o, t, _ in found if t == T_INODE}
    names = {dentry(img, o)[2]: o for o, t, _ in found if t == T_DENTRY}
    for off, ntype, length in found:
        if what == 'nlink' and ntype == T_INODE:
            mode, nlink = struct.unpack_from('<II', img, off + 32 + 16 + 8 + 48 + 8)
            if mode & 0o170000 == 0o100000 and nlink == 2:
                struct.pack_into('<I', img, off + 32 + 16 + 8 + 48 + 12, 3)
                seal(img, off, length)
                done += 1
        elif what == 'unlinked' and ntype == T_INODE and not done:
            mode, nlink = struct.unpack_from('<II', img, off + 32 + 16 + 8 + 48 + 8)
            if mode & 0o170000 == 0o100000 and nlink == 1:
                struct.pack_into('<I', img, off + 32 + 16 + 8 + 48 + 12, 0)
                seal(img, off, length)
                done += 1
        elif what == 'space' and ntype == T_CP:
            free, = struct.unpack_from('<Q', img, off + 168)
            struct.pack_into('<Q', img, off + 168, free + 4096)
            seal(img, off, length)
            done += 1
    if what in ('dangling', 'hash') and b'size1' in names:
        off = names[b'size1']
        if what == 'dangling':
            struct.pack_into('<Q', img, off + 48, 999999)
        else:
            img[off + 64 + 4] = ord('2')
        seal(img, off, struct.unpack_from('<I', img, off + 16)[0])
        done += 1
    if what == 'dirnames' and b'fifo' in names and b'dir' in names:
        off = names[b'fifo']
        target = dentry(img, names[b'dir'])[0]
        struct.pack_into('<QB', img, off + 48, target, 4)
        seal(img, off, struct.unpack_from('<I', img, off + 16)[0])
        done += 1
    if not done:
        sys.exit('corrupt.py: nothing to damage for ' + what)
    open(path, 'wb').write(img)


if __name__ == '__main__':
    main()

# SPDX-License-Identifier: GPL-2.0
#
# The changes make overlay-test makes to its system, sourced by the guest
# (harness/overlay/init, R empty: on the merged view) and by the host
# (harness/overlay-test.sh, R a copy of the squashfs tree), which applies
# them to a plain directory to get the view the guest must see.  What
# overlayfs does to its upper layer to make them (whiteouts, redirects,
# opaque directories, copy-up) must not show in the merged view.  POSIX
# sh: busybox in the guest, dash or bash on the host.

# Boot 1: a fresh device configured and a package installed
change1() {
	# a package installed: new files and directories
	mkdir -p "$R/usr/lib/newpkg" "$R/etc/newpkg" &&
		echo "newpkg 1.0" >"$R/usr/lib/newpkg/VERSION" &&
		echo enabled >"$R/etc/newpkg/config" &&
		ln -s ../../usr/lib/newpkg/VERSION "$R/etc/newpkg/version" &&
	# a lower file replaced as uci commit does: a new file renamed
	# over it
	printf 'config system\n\toption hostname ovl\n' \
		>"$R/etc/config/.system.tmp" &&
		mv "$R/etc/config/.system.tmp" "$R/etc/config/system" &&
	# lower files changed in place, their data and their mode: copied
	# up (an O_TMPFILE file in the work directory, linked into place)
	echo "export OVL=1" >>"$R/etc/profile" &&
		chmod 600 "$R/etc/shadow" &&
	# lower files deleted: whiteouts
	rm "$R/etc/config/dropbear" "$R/usr/bin/oldtool" &&
	# a lower directory renamed: a redirect (redirect_dir=on)
	mv "$R/usr/share/olddir" "$R/usr/share/newdir" &&
	# a lower directory removed and made again: an opaque directory
	# (mode given: see ovl_umask_note below)
	rm -rf "$R/www" && mkdir -m 755 "$R/www" &&
		echo "<p>new</p>" >"$R/www/index.html"
}

# Boot 2, synced before the power cut: it must all be there after it
change2() {
	# a deleted lower file made again over its whiteout (mode given:
	# see ovl_umask_note below)
	echo "config dropbear again" >"$R/etc/config/dropbear" &&
		chmod 644 "$R/etc/config/dropbear" &&
	# a directory of the renamed one moved out of it, and the package
	# partly removed
	mv "$R/usr/share/newdir/sub" "$R/usr/share/sub-moved" &&
		rm "$R/usr/lib/newpkg/VERSION" &&
	# a hard link to a lower file (copied up first)
	ln "$R/etc/banner" "$R/etc/banner.link" &&
	mkdir -p "$R/var/churn"
}

# ovl_umask_note: overlayfs of 6.1 built without CONFIG_FS_POSIX_ACL (the
# test kernels) does not apply the umask to a file or directory made over
# a whiteout, whatever its upper layer (tmpfs too): it sets
# SB_POSIXACL, so the VFS leaves the umask to it, and its stub
# posix_acl_create() leaves the mode as it is.  The changes give those
# modes explicitly, so that the views compare what the upper layer keeps.

# manifest DIR: every name under DIR with its type, mode and contents (or
# target), sorted; the same on the host and in the guest.  Left out: the
# directories the guest mounts something on, whose modes are those of
# what is mounted, and /lib/ovl-test, where the expected manifests are.
manifest() {
	(cd "$1" && find . \( -path ./proc -o -path ./sys -o -path ./dev -o \
		-path ./tmp -o -path ./rom -o -path ./overlay -o \
		-path ./lib/ovl-test \) -prune -o -print | LC_ALL=C sort |
	while IFS= read -r p; do
		if [ -h "$p" ]; then
			echo "l $p -> $(readlink "$p")"
		elif [ -d "$p" ]; then
			echo "d $(stat -c %a "$p") $p"
		elif [ -f "$p" ]; then
			echo "f $(stat -c %a "$p") $p $(sha256sum <"$p" | cut -c1-64)"
		else
			echo "? $(stat -c %a "$p") $p"
		fi
	done)
}

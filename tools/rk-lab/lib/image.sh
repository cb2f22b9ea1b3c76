# SPDX-License-Identifier: BSD-3-Clause
# rk-lab build: the guest image from Debian's own packages, cached.
#
# $RK_LAB_CACHE/
#   debs/          every .deb fetched (kept: a rebuild needs no mirror)
#   siw/<kver>/    siw.ko and siw-crc.ko built for that kernel
#   image/         vmlinuz, initrd.img, manifest, key (what it was built from)

# The versioned image package behind linux-image-amd64 (the stock kernel).
kernel_package() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
}
candidate_version() { apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" { print $2 }'; }

# Fetches PACKAGE=VERSION into debs/ unless there; prints the file's path.
fetch_deb() {
	local pkg=$1 ver=$2 f
	f=$(ls "$RK_LAB_CACHE/debs/${pkg}_${ver/*:/}_"*.deb 2>/dev/null | head -n1)
	if [ -z "$f" ]; then
		(cd "$RK_LAB_CACHE/debs" && "${APT[@]}" -qq download "$pkg=$ver" >&2) ||
			die "cannot download $pkg $ver"
		f=$(ls "$RK_LAB_CACHE/debs/${pkg}_${ver/*:/}_"*.deb | head -n1)
	fi
	echo "$f"
}

# Debian builds its kernels without CONFIG_RDMA_SIW: siw.ko comes from the
# same version's linux-source, built against the same version's headers.
# Two builds: stock, and one that requires MPA CRC (a compile-time constant
# in siw_main.c, not a module parameter).
build_siw() { # KVER DEBVER
	local kver=$1 ver=$2 out="$RK_LAB_CACHE/siw/$1" series src deb variant dir
	[ -s "$out/siw.ko" ] && [ -s "$out/siw-crc.ko" ] && return 0
	series=${kver%%.0-*}
	apt_install "linux-headers-$kver" make gcc
	mkdir -p "$out"
	src="$out/src"
	if [ ! -s "$src/siw_main.c" ]; then
		deb=$(fetch_deb "linux-source-$series" "$ver")
		say "unpacking drivers/infiniband/sw/siw from $(basename "$deb")"
		rm -rf "$src" && mkdir -p "$src"
		dpkg-deb --fsys-tarfile "$deb" |
			tar -xO "./usr/src/linux-source-$series.tar.xz" | xz -dc |
			tar -x -C "$src" --strip-components=5 --wildcards \
				"linux-source-$series/drivers/infiniband/sw/siw/*" ||
			die "no siw sources in $deb"
		rm -f "$deb" # 140 MB, and the two sources of siw are all it held for us
	fi
	for variant in siw siw-crc; do
		dir="$out/build-$variant"
		rm -rf "$dir" && cp -r "$src" "$dir"
		if [ "$variant" = siw-crc ]; then
			sed -i 's/^const bool mpa_crc_required;/const bool mpa_crc_required = true;/' "$dir/siw_main.c"
			grep -q '^const bool mpa_crc_required = true;' "$dir/siw_main.c" ||
				die "siw_main.c of $kver has no mpa_crc_required constant to set"
		fi
		say "building $variant.ko for $kver"
		make -s -C "/usr/src/linux-headers-$kver" M="$dir" CONFIG_RDMA_SIW=m \
			-j"$(nproc)" modules >"$dir.log" 2>&1 || {
			tail -20 "$dir.log" >&2
			die "building $variant.ko failed"
		}
		strip --strip-debug -o "$out/$variant.ko" "$dir/siw.ko"
		rm -rf "$dir" "$dir.log"
	done
}

# The guest packages' dependency closure (no recommends), one name a line.
guest_closure() {
	apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances "${GUEST_PACKAGES[@]}" 2>/dev/null |
		grep -v '^[ <]' | sort -u
}

# Copies the modules NAMES... with their dependencies from the unpacked
# kernel tree KROOT into ROOT.
copy_modules() { # KROOT ROOT KVER NAMES...
	local kroot=$1 root=$2 kver=$3 m f rel
	shift 3
	for m in "$@"; do
		modprobe -d "$kroot" -S "$kver" --show-depends "$m" 2>/dev/null |
			awk '$1 == "insmod" { print $2 }'
	done | sort -u | while read -r f; do
		rel=${f#"$kroot"/}
		mkdir -p "$root/${rel%/*}"
		cp "$f" "$root/$rel"
	done
}

image_key() { # KPKG KVER-DEB
	echo "format $IMAGE_FORMAT; kernel $1 $2;" \
		"init $(sha256sum "$LAB_DIR/guest/init" | cut -c1-12);" \
		"packages $(printf '%s ' "${GUEST_PACKAGES[@]}" | sha256sum | cut -c1-12)"
}

cmd_build() {
	need_root
	local force=0
	[ "${1:-}" = --force ] && force=1
	apt_install "${HOST_PACKAGES[@]}"
	apt_refresh
	local kpkg kver kdeb img key t0=$SECONDS
	kpkg=$(kernel_package)
	[ -n "$kpkg" ] || die "linux-image-amd64 does not resolve (apt lists?)"
	kver=${kpkg#linux-image-}
	kdeb=$(candidate_version "$kpkg")
	img="$RK_LAB_CACHE/image"
	key=$(image_key "$kpkg" "$kdeb")
	if [ $force = 0 ] && [ -s "$img/initrd.img" ] && [ "$(cat "$img/key" 2>/dev/null)" = "$key" ]; then
		return 0
	fi
	say "building the guest image ($kpkg $kdeb)"
	mkdir -p "$RK_LAB_CACHE/debs"
	build_siw "$kver" "$kdeb"

	local work="$RK_LAB_CACHE/work" root kroot kdebfile names d
	rm -rf "$work"
	root="$work/root" kroot="$work/kernel"
	mkdir -p "$root" "$kroot"
	kdebfile=$(fetch_deb "$kpkg" "$kdeb")
	names=$(guest_closure)
	[ -n "$names" ] || die "cannot resolve the guest packages"
	# shellcheck disable=SC2086
	(cd "$RK_LAB_CACHE/debs" && "${APT[@]}" -qq download $names >&2) ||
		die "cannot download the guest packages"

	# Userland: each package of the closure unpacked (no maintainer scripts;
	# nothing is installed on the host), documentation left out.
	for d in $names; do
		dpkg-deb -x "$(ls -t "$RK_LAB_CACHE/debs/${d}_"*.deb | head -n1)" "$root"
	done
	rm -rf "$root"/usr/share/{doc,man,info,locale,lintian,bug,bash-completion,zsh} "$root/var"

	# Kernel: the image package unpacked aside, the wanted modules copied.
	dpkg-deb -x "$kdebfile" "$kroot"
	mkdir -p "$kroot/lib/modules/$kver/extra"
	cp "$RK_LAB_CACHE/siw/$kver/siw.ko" "$kroot/lib/modules/$kver/extra/"
	depmod -b "$kroot" "$kver"
	copy_modules "$kroot" "$root" "$kver" "${GUEST_MODULES[@]}" "${GUEST_OPTIONAL_MODULES[@]}"
	cp "$kroot/lib/modules/$kver"/modules.{order,builtin,builtin.modinfo} "$root/lib/modules/$kver/"
	depmod -b "$root" "$kver"
	mkdir -p "$root/usr/lib/rk-lab"
	cp "$RK_LAB_CACHE/siw/$kver/siw-crc.ko" "$root/usr/lib/rk-lab/"

	# /bin/sh is dash: busybox's sh would prefer its own ip and tc applets
	# to iproute2's. Busybox fills in only what no package provides.
	ln -sf dash "$root/bin/sh"
	local have applet
	have=$(cd "$root" && ls bin sbin usr/bin usr/sbin 2>/dev/null)
	for applet in $("$root/bin/busybox" --list); do
		grep -qxF -- "$applet" <<<"$have" || ln -s /bin/busybox "$root/bin/$applet"
	done
	mkdir -p "$root"/{proc,sys,dev,tmp,run,root,etc/rk-lab}
	printf '%s\n' "${GUEST_MODULES[@]}" >"$root/etc/rk-lab/modules"
	echo 'root:x:0:0:root:/root:/bin/bash' >"$root/etc/passwd"
	echo 'root:x:0:' >"$root/etc/group"
	{
		echo '127.0.0.1 localhost'
		echo "$(guest_ip 1) guest1"
		echo "$(guest_ip 2) guest2"
	} >"$root/etc/hosts"
	install -m 0755 "$LAB_DIR/guest/init" "$root/init"
	{
		echo "kernel $kpkg $kdeb"
		echo "siw built from linux-source-${kver%%.0-*} $kdeb"
		for d in $names; do
			dpkg-deb -f "$(ls -t "$RK_LAB_CACHE/debs/${d}_"*.deb | head -n1)" Package Version |
				paste -sd' ' | sed 's/Package: //; s/ Version://'
		done
	} >"$root/etc/rk-lab/manifest"

	mkdir -p "$img"
	(cd "$root" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --owner=0:0 --quiet | gzip -1) >"$work/initrd.img"
	cp "$kroot/boot/vmlinuz-$kver" "$img/vmlinuz"
	mv "$work/initrd.img" "$img/initrd.img"
	cp "$root/etc/rk-lab/manifest" "$img/manifest"
	echo "$key" >"$img/key"
	rm -rf "$work"
	echo $((SECONDS - t0)) >"$img/build-seconds"
	say "image built in $((SECONDS - t0)) s: $(du -h "$img/initrd.img" | cut -f1) initramfs, $(du -h "$img/vmlinuz" | cut -f1) kernel"
}

# SPDX-License-Identifier: BSD-3-Clause
# rk-lab build: the guest image from Debian's own packages, cached.
#
# The initramfs is three gzip'd cpio archives one after the other (the
# kernel unpacks them in turn): the userland, the kernel's modules, and a
# small top layer (init, configuration, manifest). The first two are
# cached under a name that says what they hold, so a rebuild repacks only
# what changed.
#
# $RK_LAB_CACHE/
#   debs/          every .deb fetched (kept: a rebuild needs no mirror)
#   siw/<kver>/    siw.ko and siw-crc.ko built for that kernel
#   layers/        userland-<hash>.cpio.gz, modules-<kver>-<hash>.cpio.gz
#   image/         vmlinuz, initrd.img, manifest, key (what it was built
#                  from), build-seconds

# The versioned image package behind linux-image-amd64 (the stock kernel).
kernel_package() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
}
candidate_version() { apt-cache policy "$1" 2>/dev/null | awk '$1 == "Candidate:" { print $2 }'; }

# Fetches PACKAGE=VERSION into debs/ unless there; prints the file's path.
fetch_deb() {
	local pkg=$1 ver=$2 f
	# A glob, not ls: under pipefail and inherit_errexit a failing ls
	# (nothing cached yet, as on a fresh machine) would end the build.
	f=$(cached_deb "$pkg" "$ver")
	if [ -z "$f" ]; then
		(cd "$RK_LAB_CACHE/debs" && "${APT[@]}" -qq download "$pkg=$ver" >&2) ||
			unavailable "cannot download $pkg $ver"
		f=$(cached_deb "$pkg" "$ver")
		[ -n "$f" ] || unavailable "apt-get download left no $pkg $ver"
	fi
	echo "$f"
}

cached_deb() { # PKG VER -> the cached .deb, or nothing
	local files=("$RK_LAB_CACHE/debs/${1}_${2/*:/}_"*.deb)
	[ -e "${files[0]}" ] && echo "${files[0]}"
	return 0
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

# The .deb file names (apt-get download's naming) of the candidates of
# NAMES..., one a line; downloads those not in debs/ yet.
fetch_closure() {
	local files=() want=() p v a f
	while read -r p v a; do
		f="${p}_${v//:/%3a}_$a.deb"
		files+=("$f")
		[ -s "$RK_LAB_CACHE/debs/$f" ] || want+=("$p=$v")
	done < <(apt-cache show --no-all-versions "$@" 2>/dev/null |
		awk '/^Package:/ { p = $2 } /^Version:/ { v = $2 } /^Architecture:/ { print p, v, $2 }')
	if [ ${#want[@]} -gt 0 ]; then
		(cd "$RK_LAB_CACHE/debs" && "${APT[@]}" -qq download "${want[@]}" >&2) ||
			unavailable "cannot download the guest packages"
	fi
	printf '%s\n' "${files[@]}"
}

# Writes the gzip'd newc cpio archive of directory DIR to FILE.
pack() { # DIR FILE
	(cd "$1" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --owner=0:0 --quiet | gzip -1) >"$2.tmp" &&
		mv "$2.tmp" "$2"
}

# The userland layer of the .deb files DEBS...: each unpacked with
# dpkg-deb -x (no maintainer scripts; nothing is installed on the host),
# documentation left out, busybox applets for what no package provides.
userland_layer() { # DEBS...
	local layer dir d applet
	# Named after its .debs and the code that makes it.
	layer="$RK_LAB_CACHE/layers/userland-$({
		printf '%s\n' "$@"
		declare -f userland_layer pack
	} | sha256sum | cut -c1-16).cpio.gz"
	if [ ! -s "$layer" ]; then
		dir="$RK_LAB_CACHE/work/userland"
		rm -rf "$dir" && mkdir -p "$dir"
		for d in "$@"; do dpkg-deb -x "$RK_LAB_CACHE/debs/$d" "$dir"; done
		rm -rf "$dir"/usr/share/{doc,man,info,locale,lintian,bug,bash-completion,zsh} "$dir/var"
		# /bin/sh is dash: busybox's sh would run its own ip and tc
		# applets ahead of iproute2's.
		ln -sf dash "$dir/bin/sh"
		local -A have=()
		for d in "$dir"/{bin,sbin,usr/bin,usr/sbin}/*; do have[${d##*/}]=1; done
		for applet in $("$dir/bin/busybox" --list); do
			[ -n "${have[$applet]:-}" ] || ln -s /bin/busybox "$dir/bin/$applet"
		done
		pack "$dir" "$layer"
		rm -rf "$dir"
	fi
	echo "$layer"
}

# The module layer: the modules the guest loads, their dependencies and
# siw.ko (siw-crc.ko beside it, for "rk-lab link ... siw-crc"), taken from
# the kernel package; vmlinuz is left in the cache's work directory.
modules_layer() { # KDEB KVER
	local kdeb=$1 kver=$2 layer dir kroot m f rel
	f="$RK_LAB_CACHE/siw/$kver"
	layer="$RK_LAB_CACHE/layers/modules-$kver-$({
		printf '%s\n' "$kdeb" "${GUEST_MODULES[@]}" "${GUEST_OPTIONAL_MODULES[@]}"
		cat "$f/siw.ko" "$f/siw-crc.ko"
		declare -f modules_layer pack
	} | sha256sum | cut -c1-16).cpio.gz"
	if [ -s "$layer" ] && [ -s "$RK_LAB_CACHE/layers/vmlinuz-$kver" ]; then
		echo "$layer"
		return 0
	fi
	dir="$RK_LAB_CACHE/work/modules" kroot="$RK_LAB_CACHE/work/kernel"
	rm -rf "$dir" "$kroot" && mkdir -p "$dir" "$kroot"
	# Only the kernel and the module directories the guest can need.
	dpkg-deb --fsys-tarfile "$kdeb" | tar -x -C "$kroot" --wildcards \
		"./boot/vmlinuz-$kver" "./lib/modules/$kver/modules.*" \
		"./lib/modules/$kver/kernel/drivers/infiniband/*" \
		"./lib/modules/$kver/kernel/drivers/net/*" \
		"./lib/modules/$kver/kernel/drivers/virtio/*" \
		"./lib/modules/$kver/kernel/drivers/char/*" \
		"./lib/modules/$kver/kernel/net/*" \
		"./lib/modules/$kver/kernel/crypto/*" \
		"./lib/modules/$kver/kernel/fs/*" \
		"./lib/modules/$kver/kernel/lib/*" \
		"./lib/modules/$kver/kernel/arch/*" || die "cannot unpack $kdeb"
	mkdir -p "$kroot/lib/modules/$kver/extra"
	cp "$f/siw.ko" "$kroot/lib/modules/$kver/extra/"
	depmod -b "$kroot" "$kver"
	# A module whose dependencies are not all here is an error, not a
	# guest without it (rdma_ucm needs configfs, under fs/).
	for m in "${GUEST_MODULES[@]}" "${GUEST_OPTIONAL_MODULES[@]}"; do
		modprobe -d "$kroot" -S "$kver" --show-depends "$m" >"$kroot/deps" 2>&1 ||
			die "module $m of $kver: $(cat "$kroot/deps")"
		awk '$1 == "insmod" { print $2 }' "$kroot/deps"
	done | sort -u | while read -r m; do
		rel=${m#"$kroot"/}
		mkdir -p "$dir/${rel%/*}"
		cp "$m" "$dir/$rel"
	done
	cp "$kroot/lib/modules/$kver"/modules.{order,builtin,builtin.modinfo} "$dir/lib/modules/$kver/"
	depmod -b "$dir" "$kver"
	mkdir -p "$dir/usr/lib/rk-lab"
	cp "$f/siw-crc.ko" "$dir/usr/lib/rk-lab/"
	pack "$dir" "$layer"
	cp "$kroot/boot/vmlinuz-$kver" "$RK_LAB_CACHE/layers/vmlinuz-$kver"
	rm -rf "$dir" "$kroot"
	echo "$layer"
}

# The top layer: init, the guest's configuration and the manifest.
top_layer() { # FILE KPKG KDEBVER DEBS...
	local file=$1 kpkg=$2 kdeb=$3 dir="$RK_LAB_CACHE/work/top" d v
	shift 3
	rm -rf "$dir"
	mkdir -p "$dir"/{proc,sys,dev,tmp,run,root,etc/rk-lab}
	install -m 0755 "$LAB_DIR/guest/init" "$dir/init"
	printf '%s\n' "${GUEST_MODULES[@]}" >"$dir/etc/rk-lab/modules"
	echo 'root:x:0:0:root:/root:/bin/bash' >"$dir/etc/passwd"
	echo 'root:x:0:' >"$dir/etc/group"
	printf '127.0.0.1 localhost\n%s guest1\n%s guest2\n' "$(guest_ip 1)" "$(guest_ip 2)" >"$dir/etc/hosts"
	{
		echo "kernel $kpkg $kdeb"
		echo "siw built from linux-source-${kpkg#linux-image-} $kdeb" | sed 's/\.0-[0-9]*-amd64//'
		for d in "$@"; do # NAME_VERSION_ARCH.deb
			v=${d#*_}
			v=${v%_*}
			echo "${d%%_*} ${v//%3a/:}"
		done
	} >"$dir/etc/rk-lab/manifest"
	pack "$dir" "$file"
	cp "$dir/etc/rk-lab/manifest" "$RK_LAB_CACHE/work/manifest"
	rm -rf "$dir"
}

# What an image is made from: the kernel, guest/init, the package and
# module lists, and the code that builds it.
image_key() { # KPKG KVER-DEB
	echo "format $IMAGE_FORMAT; kernel $1 $2;" \
		"init $(sha256sum "$LAB_DIR/guest/init" | cut -c1-12);" \
		"recipe $({
			printf '%s\n' "${GUEST_PACKAGES[@]}" "${GUEST_MODULES[@]}" "${GUEST_OPTIONAL_MODULES[@]}"
			declare -f cmd_build userland_layer modules_layer top_layer pack
		} | sha256sum | cut -c1-12)"
}

cmd_build() {
	need_root
	local force=0
	[ "${1:-}" = --force ] && force=1
	apt_install "${HOST_PACKAGES[@]}"
	apt_refresh
	local kpkg kver kdeb img key lock t0=$SECONDS t=$SECONDS
	kpkg=$(kernel_package)
	[ -n "$kpkg" ] || die "linux-image-amd64 does not resolve (apt lists?)"
	kver=${kpkg#linux-image-}
	kdeb=$(candidate_version "$kpkg")
	img="$RK_LAB_CACHE/image"
	key=$(image_key "$kpkg" "$kdeb")
	if [ $force = 0 ] && [ -s "$img/initrd.img" ] && [ "$(cat "$img/key" 2>/dev/null)" = "$key" ]; then
		return 0
	fi
	# One build at a time per cache; a build that waited finds the image
	# another one made.
	mkdir -p "$RK_LAB_CACHE"
	exec {lock}>"$RK_LAB_CACHE/.build.lock"
	flock "$lock"
	if [ $force = 0 ] && [ -s "$img/initrd.img" ] && [ "$(cat "$img/key" 2>/dev/null)" = "$key" ]; then
		exec {lock}>&-
		return 0
	fi
	say "building the guest image ($kpkg $kdeb)"
	step() {
		say "  $1: $((SECONDS - t)) s"
		t=$SECONDS
	}
	mkdir -p "$RK_LAB_CACHE/debs" "$RK_LAB_CACHE/layers" "$RK_LAB_CACHE/work" "$img"
	build_siw "$kver" "$kdeb"
	step "siw.ko and siw-crc.ko"
	local names debs userland modules
	names=$(guest_closure)
	[ -n "$names" ] || die "cannot resolve the guest packages"
	# shellcheck disable=SC2086
	debs=$(fetch_closure $names)
	step "packages resolved and fetched"
	# shellcheck disable=SC2086
	userland=$(userland_layer $debs)
	step "userland layer"
	modules=$(modules_layer "$(fetch_deb "$kpkg" "$kdeb")" "$kver")
	step "module layer"
	# shellcheck disable=SC2086
	top_layer "$RK_LAB_CACHE/work/top.cpio.gz" "$kpkg" "$kdeb" $debs
	cat "$userland" "$modules" "$RK_LAB_CACHE/work/top.cpio.gz" >"$img/initrd.img.tmp"
	cp "$RK_LAB_CACHE/layers/vmlinuz-$kver" "$img/vmlinuz.tmp"
	mv "$RK_LAB_CACHE/work/manifest" "$img/manifest"
	mv "$img/vmlinuz.tmp" "$img/vmlinuz"
	mv "$img/initrd.img.tmp" "$img/initrd.img"
	echo "$key" >"$img/key"
	rm -rf "$RK_LAB_CACHE/work"
	# Layers of earlier recipes or versions are not needed again.
	for d in "$RK_LAB_CACHE"/layers/*.cpio.gz; do
		[ "$d" = "$userland" ] || [ "$d" = "$modules" ] || rm -f "$d"
	done
	step "top layer, image"
	echo $((SECONDS - t0)) >"$img/build-seconds"
	exec {lock}>&-
	say "image built in $((SECONDS - t0)) s: $(du -h "$img/initrd.img" | cut -f1) initramfs, $(du -h "$img/vmlinuz" | cut -f1) kernel"
}

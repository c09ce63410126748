# Shell helpers for clean Debian roots made with mmdebstrap, sourced by
# tools/in-root and tests/install/run:  . tools/root-common.sh
# POSIX sh; they use no variables of the caller's except those passed.

# root_sources_list SUITE: prints a sources.list for SUITE (bookworm, trixie,
# sid, ...) from this machine's own Debian mirror: the archives its apt
# configuration names for its release (CODENAME, CODENAME-updates,
# CODENAME-security; main only) with SUITE in place of CODENAME.  sid and
# unstable have no -updates or -security suites.  Other repositories (suites
# with other names) are left out.  Fails when the host names no CODENAME main.
root_sources_list() {
  _rs_suite=$1
  _rs_host=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  _rs_list=$(apt-get indextargets --format '$(TARGET_OF) $(REPO_URI) $(RELEASE) $(COMPONENT)' 'Identifier: Packages' | \
    sort -u | awk -v h="$_rs_host" -v s="$_rs_suite" '
      $1 != "deb" || $4 != "main" { next }
      $3 == h { print "deb " $2 " " s " main"; next }
      s == "sid" || s == "unstable" { next }
      $3 == h "-updates" { print "deb " $2 " " s "-updates main"; next }
      $3 == h "-security" { print "deb " $2 " " s "-security main" }')
  case $_rs_list in
    *" $_rs_suite main"*) printf '%s\n' "$_rs_list" ;;
    *) echo "root-common: no ${_rs_host:-(unknown)} main archive in this machine's apt configuration" >&2; return 1 ;;
  esac
}

# root_available_packages ROOT NAME...: prints, one a line, the NAMEs that
# ROOT's apt knows (after apt-get update there), and names the others on
# standard error.  How one package list serves several releases: a package
# that a release lacks is left out there, said aloud.
root_available_packages() {
  _ra_root=$1; shift
  for _ra_p in "$@"; do
    if root_exec "$_ra_root" "" apt-cache show --no-all-versions "$_ra_p" >/dev/null 2>&1; then
      echo "$_ra_p"
    else
      echo "root-common: $_ra_p is not in this release; left out" >&2
    fi
  done
}

# root_exec ROOT BIND COMMAND...: runs COMMAND as root in ROOT, in private
# mount and PID namespaces, with a fresh /proc, the host's /dev and /sys,
# an empty /tmp, the host's resolv.conf, and, when BIND is not empty, the
# host folder BIND bind-mounted at the same path (so build folders made
# there work on both sides).  The mounts live in the namespace only: they
# vanish when COMMAND ends, however it ends.  The working folder is the
# caller's when it is inside BIND, else /.  The environment is clean
# (PATH, HOME, LC_ALL, DEBIAN_FRONTEND; TERM and CI when set).
root_exec() {
  _re_root=$1 _re_bind=$2; shift 2
  _re_cwd=/
  if [ -n "$_re_bind" ]; then
    case $(pwd -P)/ in "$_re_bind"/*) _re_cwd=$(pwd -P) ;; esac
  fi
  unshare --mount --pid --fork --propagation private --mount-proc="$_re_root/proc" \
    sh -euc '
      root=$1 bind=$2 cwd=$3; shift 3
      mount --rbind /dev "$root/dev"
      mount --rbind /sys "$root/sys"
      mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
      if [ -f /etc/resolv.conf ]; then
        [ -e "$root/etc/resolv.conf" ] || : > "$root/etc/resolv.conf"
        mount --bind -o ro "$(readlink -f /etc/resolv.conf)" "$root/etc/resolv.conf" 2>/dev/null || true
      fi
      if [ -n "$bind" ]; then
        mkdir -p "$root$bind"
        mount --bind "$bind" "$root$bind"
      fi
      exec chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive ${TERM:+TERM=$TERM} ${CI:+CI=$CI} \
        sh -c "cd \"\$0\" && exec \"\$@\"" "$cwd" "$@"
    ' root-exec "$_re_root" "$_re_bind" "$_re_cwd" "$@"
}

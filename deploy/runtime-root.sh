#!/bin/sh
# The runtime image's root filesystem: the build's base less what the service never loads at run time.
# deploy/Dockerfile runs this in its `root` stage, on the same base as the build stage (the same Python, at the
# same path, as the virtualenv was made with), and the runtime stage copies the result into an empty image:
# files removed here take no room in any layer. docs/deployment.md ("The image") lists what goes and why.
#
# Whole Debian packages go with dpkg (their maintainer scripts first, so that no removal script needs the perl,
# debconf or apt it removes), so /var/lib/dpkg/status stays a true list of what is installed, for image scanners
# and `dpkg -l`; parts of packages that stay (glibc's iconv modules, Python's tests) are removed as files. On a
# base without some of these packages (the official python:slim has no Debian Python) they are skipped.
set -eu

# Installing, configuring and logging in: apt, dpkg's helpers, debconf, perl, the user tools (the user is made
# before this runs), PAM, util-linux and the libraries only they load.
TOOLS="apt libapt-pkg6.0 gpgv debian-archive-keyring debconf perl-base adduser passwd login libpam-runtime
libpam-modules libpam-modules-bin libpam0g libsemanage2 libsemanage-common libsepol2 libaudit1 libaudit-common
libcap-ng0 util-linux util-linux-extra libmount1 libblkid1 libsmartcols1 bsdutils sysvinit-utils
init-system-helpers ncurses-bin libgnutls30 libunistring2 libidn2-0 libp11-kit0 libtasn1-6 libnettle8 libhogweed6
libgcrypt20 libgpg-error0 libsystemd0 libudev1 liblz4-1 libxxhash0 libseccomp2 libcap2"
# Python's installers and build tools: venv, ensurepip's pip and setuptools wheels, distutils, lib2to3.
PYTHON_TOOLS="python3-venv python3.11-venv python3-pip-whl python3-setuptools-whl python3-distutils python3-lib2to3"
# The libraries of Python modules the service never imports: dbm (Berkeley DB), sqlite3, curses, readline, nis
# (with its RPC and Kerberos libraries).
MODULE_LIBS="libdb5.3 libsqlite3-0 libncursesw6 libreadline8 readline-common libnsl2 libtirpc3 libtirpc-common
libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0 libkeyutils1 libcom-err2"

installed=""
for package in $TOOLS $PYTHON_TOOLS $MODULE_LIBS; do
  if dpkg-query -W -f '${Status}' "$package" 2>/dev/null | grep -q ' installed$'; then
    installed="$installed $package"
    rm -f /var/lib/dpkg/info/"$package".*rm /var/lib/dpkg/info/"$package":*.*rm
  fi
done
if [ -n "$installed" ]; then
  # Its warnings (an essential package removed, a directory left that is not empty) are expected: shown only
  # when it fails.
  # shellcheck disable=SC2086 # one word a package
  dpkg --purge --force-remove-essential --force-depends $installed >/tmp/dpkg.log 2>&1 \
    || { cat /tmp/dpkg.log >&2; exit 1; }
  rm /tmp/dpkg.log
fi

# Python: its tests, IDLE, tkinter, turtle, pydoc's topics, the installers the packages above left, the
# extension modules of the libraries removed above, and the base interpreter's own pip, setuptools and wheel
# (the official image has them; the service's virtualenv never sees them).
stdlib=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
purelib=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
rm -rf "$purelib"/pip "$purelib"/pip-* "$purelib"/setuptools "$purelib"/setuptools-* "$purelib"/wheel \
  "$purelib"/wheel-* "$purelib"/_distutils_hack "$purelib"/distutils-precedence.pth "$purelib"/pkg_resources
rm -rf "$stdlib"/test "$stdlib"/idlelib "$stdlib"/tkinter "$stdlib"/turtledemo "$stdlib"/turtle.py \
  "$stdlib"/lib2to3 "$stdlib"/ensurepip "$stdlib"/distutils "$stdlib"/pydoc_data "$stdlib"/sqlite3 \
  "$stdlib"/curses "$stdlib"/config-3*
for module in _test _xx xxlimited _ctypes_test _dbm _sqlite3 _curses readline nis; do
  rm -f "$stdlib"/lib-dynload/"$module"*.so
done
find "$stdlib" -depth -type d -name __pycache__ -empty -delete

# glibc's iconv modules (Python's codecs are its own), locales other than C.UTF-8, documentation other than
# the copyright files, bash completion, lintian's and gdb's files, dpkg's and apt's leftovers, and every cache.
rm -rf /usr/lib/*-linux-gnu/gconv /usr/share/i18n /usr/share/locale /usr/share/man /usr/share/info \
  /usr/share/bash-completion /usr/share/lintian /usr/share/gdb /usr/share/gcc /usr/share/python-wheels \
  /etc/apt /var/lib/apt /var/cache/* /var/log/* /var/lib/dpkg/status-old
find /usr/lib/locale -mindepth 1 -maxdepth 1 ! -name C.utf8 -exec rm -rf {} +
find /usr/share/doc -type f ! -name copyright -delete
find /var/lib/dpkg/info -type f ! -name '*.list' ! -name '*.md5sums' ! -name '*.conffiles' ! -name format -delete
find /usr/share -mindepth 1 -depth -type d -empty -delete

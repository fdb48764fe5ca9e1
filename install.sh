#!/bin/sh
# Installs the harness binary for this machine from a GitHub release.
#
#   curl -fsSL https://raw.githubusercontent.com/harness-dev/harness/main/install.sh | sh
#   sh install.sh --version 0.1.0 --dir /usr/local/bin
#
# It picks the binary for this OS and CPU, checks it against the release's SHA256SUMS,
# and installs it as "harness" (mode 755). A binary whose checksum does not match is
# never installed. Run "sh install.sh --help" for the options and environment.
#
# Test hooks: HARNESS_UNAME_S and HARNESS_UNAME_M replace the output of "uname -s" and
# "uname -m", so the tests can act as another platform.

set -eu

usage() {
  cat <<'EOF'
Usage: install.sh [--version V] [--dir DIR]

Installs harness for this machine from a GitHub release, after checking its SHA-256
checksum against the release's SHA256SUMS.

Options:
  --version V  version to install, such as 0.1.0 (default: latest)
  --dir DIR    directory to install into (default: $HOME/.local/bin)
  -h, --help   show this help

Environment:
  HARNESS_VERSION       version to install (as --version)
  HARNESS_INSTALL_DIR   directory to install into (as --dir)
  HARNESS_REPO          GitHub repository (default: harness-dev/harness)
  HARNESS_DOWNLOAD_URL  where the release files are (default:
                        https://github.com/$HARNESS_REPO/releases/download/v$VERSION);
                        may be a local directory or a file:// URL
  HARNESS_UNAME_S, HARNESS_UNAME_M
                        test hooks: used instead of "uname -s" and "uname -m"
EOF
}

say() {
  printf '%s\n' "$*"
}

die() {
  printf 'install.sh: error: %s\n' "$*" >&2
  exit 1
}

usage_error() {
  printf 'install.sh: error: %s: see --help\n' "$*" >&2
  exit 2
}

have() {
  command -v "$1" >/dev/null 2>&1
}

# ---- command line ---------------------------------------------------------------

version=${HARNESS_VERSION:-latest}
install_dir=${HARNESS_INSTALL_DIR:-}
repo=${HARNESS_REPO:-harness-dev/harness}

while [ "$#" -gt 0 ]; do
  case $1 in
    --version)
      [ "$#" -ge 2 ] || usage_error 'option "--version" needs a value'
      version=$2
      shift 2
      ;;
    --version=*)
      version=${1#--version=}
      shift
      ;;
    --dir)
      [ "$#" -ge 2 ] || usage_error 'option "--dir" needs a value'
      install_dir=$2
      shift 2
      ;;
    --dir=*)
      install_dir=${1#--dir=}
      shift
      ;;
    -h | --help)
      usage
      exit 0
      ;;
    *)
      usage_error "unknown argument \"$1\""
      ;;
  esac
done

# ---- platform -------------------------------------------------------------------

os=${HARNESS_UNAME_S:-$(uname -s)}
arch=${HARNESS_UNAME_M:-$(uname -m)}

case $os in
  Linux) os_part=unknown-linux-gnu ;;
  Darwin) os_part=apple-darwin ;;
  MINGW* | MSYS* | CYGWIN* | Windows*)
    die "unsupported operating system \"$os\": on Windows, download harness-<version>-x86_64-pc-windows-msvc.exe from https://github.com/$repo/releases"
    ;;
  *) die "unsupported operating system \"$os\": harness is built for Linux and macOS (Darwin)" ;;
esac

case $arch in
  x86_64 | amd64) arch_part=x86_64 ;;
  aarch64 | arm64) arch_part=aarch64 ;;
  *) die "unsupported CPU architecture \"$arch\": harness is built for x86_64 and aarch64 (arm64)" ;;
esac

target=$arch_part-$os_part

if [ -z "$install_dir" ]; then
  [ -n "${HOME:-}" ] || die 'HOME is not set: pass --dir DIR'
  install_dir=$HOME/.local/bin
fi
version=${version#v}
[ -n "$version" ] || die 'the version is empty: pass --version V, such as --version 0.1.0'

# ---- downloads ------------------------------------------------------------------

tmp=$(mktemp -d 2>/dev/null || mktemp -d -t harness-install)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# fetch URL FILE: download URL (http(s)://, file:// or a local path) to FILE.
fetch() {
  case $1 in
    http://* | https://*)
      if have curl; then
        curl -fsSL --retry 3 -o "$2" "$1"
      elif have wget; then
        wget -q -O "$2" "$1"
      else
        die "cannot download \"$1\": neither curl nor wget is installed: install one of them"
      fi
      ;;
    file://*) cp "${1#file://}" "$2" ;;
    *) cp "$1" "$2" ;;
  esac
}

# sha256 FILE: print the SHA-256 of FILE in hex.
sha256() {
  if have sha256sum; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif have shasum; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  else
    die 'cannot verify the download: neither sha256sum nor shasum is installed: install one of them'
  fi
}

# sum_of NAME: the checksum SHA256SUMS gives for NAME (empty when it lists none).
sum_of() {
  awk -v name="$1" '$2 == name || $2 == "*" name { print $1; exit }' "$tmp/SHA256SUMS"
}

if [ -n "${HARNESS_DOWNLOAD_URL:-}" ]; then
  base=${HARNESS_DOWNLOAD_URL%/}
else
  if [ "$version" = latest ]; then
    api=https://api.github.com/repos/$repo/releases/latest
    fetch "$api" "$tmp/latest.json" ||
      die "cannot find the latest release of \"$repo\" at \"$api\": pass --version V"
    version=$(sed -n 's/.*"tag_name"[^"]*"v\{0,1\}\([^"]*\)".*/\1/p' "$tmp/latest.json" | head -n 1)
    [ -n "$version" ] || die "cannot read the latest version from \"$api\": pass --version V"
  fi
  base=https://github.com/$repo/releases/download/v$version
fi

fetch "$base/SHA256SUMS" "$tmp/SHA256SUMS" ||
  die "cannot download \"$base/SHA256SUMS\": check the version \"$version\" and HARNESS_DOWNLOAD_URL"

if [ "$version" = latest ]; then
  # A custom download location: the version is the one its SHA256SUMS lists for this target.
  version=$(awk -v suffix="-$target" '
    { name = $2; sub(/^\*/, "", name) }
    name ~ /^harness-/ && substr(name, length(name) - length(suffix) + 1) == suffix {
      name = substr(name, 9, length(name) - 8 - length(suffix)); print name; exit
    }' "$tmp/SHA256SUMS")
  [ -n "$version" ] ||
    die "no harness binary for target \"$target\": \"$base/SHA256SUMS\" lists no \"harness-<version>-$target\""
fi

asset=harness-$version-$target
expected=$(sum_of "$asset")
[ -n "$expected" ] ||
  die "no harness binary for target \"$target\" in version \"$version\": \"$base/SHA256SUMS\" does not list \"$asset\""

say "Downloading $asset"
fetch "$base/$asset" "$tmp/$asset" || die "cannot download \"$base/$asset\""

actual=$(sha256 "$tmp/$asset")
if [ "$actual" != "$expected" ]; then
  die "checksum mismatch for \"$asset\": expected \"$expected\", got \"$actual\": the download is corrupt or was tampered with, so nothing was installed"
fi

# ---- install --------------------------------------------------------------------

mkdir -p "$install_dir" || die "cannot create the directory \"$install_dir\": pass --dir DIR"
# Copy next to the destination, then rename, so a running harness is never half-written.
cp "$tmp/$asset" "$install_dir/.harness.tmp.$$" ||
  die "cannot write to \"$install_dir\": pass --dir DIR or run with the needed rights"
chmod 755 "$install_dir/.harness.tmp.$$"
mv -f "$install_dir/.harness.tmp.$$" "$install_dir/harness"

say "Installed harness $version ($target) to $install_dir/harness"
case ":${PATH:-}:" in
  *":$install_dir:"* | *":${install_dir%/}:"*)
    say "$install_dir is on your PATH: run \"harness --help\""
    ;;
  *)
    say "$install_dir is not on your PATH: add it, for example with"
    say "  export PATH=\"$install_dir:\$PATH\""
    say "in your shell profile, or run \"$install_dir/harness --help\""
    ;;
esac

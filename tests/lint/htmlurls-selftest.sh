#!/bin/bash
# htmlurls-selftest.sh - the page check fails on each way a page can reach outside itself
# (a script, style, image or link by URL, a protocol-relative //host, a CSS url() or
# @import, a javascript: link) and passes a page whose references are #fragments and data:.
set -uo pipefail
SRC=$(cd "${IOTAP_SRCDIR:-$(dirname "$0")/../..}" && pwd)
CHECK=(python3 "$SRC/tests/lint/htmlurls.py")
T=$(mktemp -d /tmp/iotap-htmlurls-self.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/lint/selftest-lib.sh"

# page NAME BODY - a page holding BODY
page() {
	printf '<!DOCTYPE html>\n<html><head><title>t</title></head><body>\n%s\n</body></html>\n' \
		"$2" >"$T/$1.html"
}

page good '<a href="#disk-sda">sda</a><img src="data:image/png;base64,AAAA"><svg><rect fill="url(#g)"/></svg><p data-disk="sda">/dev/shm//x</p><iframe srcdoc="&lt;svg&gt;&lt;/svg&gt;"></iframe>'
expect 0 '^ok: 1 page' "a page of #fragments and data: passes" "${CHECK[@]}" "$T/good.html"
page script '<script src="https://cdn.example.org/d3.js"></script>'
expect 1 'a URL scheme' "an external script fails" "${CHECK[@]}" "$T/script.html"
page relscript '<script src="app.js"></script>'
expect 1 'an attribute that loads or links outside the page' "a script by relative path fails" \
	"${CHECK[@]}" "$T/relscript.html"
page style '<link rel="stylesheet" href="style.css">'
expect 1 'an attribute that loads or links outside the page' "an external style sheet fails" \
	"${CHECK[@]}" "$T/style.html"
page proto '<img src="//example.org/x.png">'
expect 1 "a protocol-relative //" "a protocol-relative image fails" "${CHECK[@]}" "$T/proto.html"
page font '<style>@font-face { font-family: f; src: url(f.woff2); }</style>'
expect 1 "a CSS url() outside the page" "a web font by url() fails" "${CHECK[@]}" "$T/font.html"
page import '<style>@import "x.css";</style>'
expect 1 "a CSS @import" "a CSS @import fails" "${CHECK[@]}" "$T/import.html"
page js '<a href=javascript:alert(1)>x</a>'
expect 1 "a URL scheme" "a javascript: link fails" "${CHECK[@]}" "$T/js.html"
page unquoted '<a href=other.html>x</a>'
expect 1 'an attribute that loads or links outside the page' "an unquoted link fails" \
	"${CHECK[@]}" "$T/unquoted.html"
page ns '<svg xmlns="http://www.w3.org/2000/svg"></svg>'
expect 1 'a URL scheme' "an SVG namespace URL fails (inline SVG needs none)" "${CHECK[@]}" "$T/ns.html"

[ "$fails" -eq 0 ] || { echo "$fails self-test(s) failed"; exit 1; }
echo "ok: the page check fails on pages that reach outside themselves"

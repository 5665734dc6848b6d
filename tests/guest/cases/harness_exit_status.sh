#!/bin/sh
# Harness self-test (registered with --expect-exit 3): a dynamically linked host
# program (readelf, with the libraries ldd listed) runs in the guest, --env values
# arrive quoted intact, and the script's exit status reaches the host.
. /kpp/lib.sh
command -v readelf >/dev/null || kpp_fail "readelf was not copied to /kpp/files"
readelf -h /kpp/files/readelf | grep -q 'Class: *ELF64' || kpp_fail "readelf does not run in the guest"
kpp_ok "host readelf runs in the guest"
[ "$KPP_TEST_WORDS" = "it's a \$test" ] || kpp_fail "KPP_TEST_WORDS arrived as '$KPP_TEST_WORDS'"
kpp_ok "--env value arrived intact"
exit 3

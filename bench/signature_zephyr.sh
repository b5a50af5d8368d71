#!/usr/bin/env bash
# The package signature check on the Zephyr firmware's verifier (PSA Crypto on Zephyr's Mbed TLS,
# p256-m, as signatures.conf configures it), on QEMU's Cortex-M33 (mps2/an521, -icount shift=0:
# an instruction a nanosecond), one line per figure, "name: value unit":
#
#  - a whole rt_signature_check() of a typical signed package (8,689 bytes: the asset tracker's
#    8,553 and the 136-byte block; tests/c/signed_package_vector.h), and its two parts: SHA-256 of
#    the 8,549 signed bytes, and the ECDSA P-256 verification;
#  - the main thread's stack at its deepest over the run.
#
# The firmware (tests/zephyr-crypto) also checks known answers; a failure fails this script.
#
#   bash bench/signature_zephyr.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(bash tests/zephyr-crypto/run.sh)
sed -n 's/^\[beacon figure\] \(.*\)$/\1/p' <<<"$out"

#!/bin/sh
# Fails if a library of the scheduler core defines an external symbol
# without its platform's prefix (sim__/simp_ or nat__/natp_), other than
# the native C API's sl_ (native/schedlab.h).  AddressSanitizer
# adds an __odr_asan. twin of each global variable; the twin of a good name
# is good.
nm=$1
shift
bad=$("$nm" -g --defined-only "$@" | awk 'NF == 3 { print $3 }' | sed 's/^__odr_asan\.//' | grep -v -e '^sim__' -e '^simp_' -e '^nat__' -e '^natp_' -e '^sl_')
if [ -n "$bad" ]; then
  echo "external names without a platform prefix (add them to core/names.h):"
  echo "$bad"
  exit 1
fi

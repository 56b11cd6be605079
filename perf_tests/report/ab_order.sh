# Sourced by the A/B scripts (result_reuse_ab.sh, spmv_ab.sh,
# host_spgemm_ab.sh): `ab_order ROUND
# VARIANT...` sets the array `order` to the variants in the order round ROUND
# runs them: as given in odd rounds, reversed in even ones (the second process
# of a pair was seen to run 2-3% slower).
ab_order() {
  local round=$1
  shift
  order=("$@")
  if ((round % 2 == 0)); then
    order=()
    local v
    for ((v = $#; v >= 1; --v)); do order+=("${!v}"); done
  fi
}

# `ab_variant SPEC` splits a variant NAME=PATH[:VAR=VALUE[,VAR=VALUE...]] into
# `name`, `path` and the array `env` (result_reuse_ab.sh, host_spgemm_ab.sh).
ab_variant() {
  name=${1%%=*}
  local rest=${1#*=}
  path=${rest%%:*}
  env=()
  if [[ $rest == *:* ]]; then IFS=, read -r -a env <<<"${rest#*:}"; fi
}

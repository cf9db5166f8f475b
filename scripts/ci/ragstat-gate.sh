#!/usr/bin/env bash
# Release gates in any CI: run `ragstat gate`, keep its JUnit and Markdown files, append the
# summary to the GitHub job summary when there is one, and exit with ragstat's own status.
#
# In (environment variables):
#   RAGSTAT_GATES        the gates file (required)
#   RAGSTAT_JUNIT        the JUnit XML to write, one test case per gate (default ragstat-gates.xml)
#   RAGSTAT_SUMMARY      the Markdown summary to write (default ragstat-gates.md)
#   RAGSTAT              the command that runs ragstat (default ragstat; e.g. "python3 -m ragstat")
#   GITHUB_STEP_SUMMARY  set by GitHub Actions: the Markdown summary is appended to it
# Out: the two files (removed first, so an old run's files are never taken for this one's)
# and the exit status of `ragstat gate`: 0 every blocking gate passes, 1 a gate blocks the
# release (fails, or is inconclusive while inconclusive gates block), 2 a mistake in the
# gates file or its inputs (one line on stderr; no files).
set -u

gates="${RAGSTAT_GATES:-}"
if [ -z "$gates" ]; then
  echo "ragstat-gate.sh: set RAGSTAT_GATES to the gates file" >&2
  exit 2
fi
junit="${RAGSTAT_JUNIT:-ragstat-gates.xml}"
summary="${RAGSTAT_SUMMARY:-ragstat-gates.md}"
read -r -a ragstat <<< "${RAGSTAT:-ragstat}"

mkdir -p -- "$(dirname -- "$junit")" "$(dirname -- "$summary")"
rm -f -- "$junit" "$summary"

status=0
"${ragstat[@]}" gate "$gates" --junit "$junit" --markdown "$summary" || status=$?

if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  if [ -f "$summary" ]; then
    cat -- "$summary" >> "$GITHUB_STEP_SUMMARY"
  else
    printf '### ragstat gate: not decided (exit code %s)\n\nThe gates in `%s` were not decided; the job log says why.\n' \
      "$status" "$gates" >> "$GITHUB_STEP_SUMMARY"
  fi
fi
exit "$status"

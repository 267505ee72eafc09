#!/bin/sh
# The oracle: a known fix, run in the candidate's sandbox by `suite check`.
printf '%s\n' '#!/bin/sh' "awk '{ s += \$1 } END { print s + 0 }' \"\$1\"" > /workspace/sum.sh

#!/bin/sh
# The oracle: a known fix, run in the candidate's sandbox by `suite check`.
printf '%s\n' '#!/bin/sh' 'echo "Hello, $1!"' > /workspace/greet.sh

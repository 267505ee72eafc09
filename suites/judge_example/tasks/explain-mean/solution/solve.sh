#!/bin/sh
# solve.sh: the reference answer, as an oracle would write it.
echo 'The sum is 24 and there are 3 numbers, so the mean is 24 / 3 = 8.' > /workspace/ANSWER.md

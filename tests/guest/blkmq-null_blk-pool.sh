# blk-mq with its request tags from the pool: in-tree null_blk under fio
# verify at five depths and three ways of sharing tags (tests/blkmq/null_blk).
set -eu
"$LAB_TESTS/blkmq/null_blk" pool

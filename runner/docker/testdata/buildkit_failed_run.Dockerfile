FROM ledgerbench/base:805948919750cdc4
COPY --chmod=755 hello.sh /hello.sh
RUN echo preparing; \
    echo "no such tool" >&2; exit 3

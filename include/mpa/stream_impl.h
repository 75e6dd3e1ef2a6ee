/*
 * Storage for struct mpa_stream.  Callers may embed or copy it but must
 * not look inside: the layout is private to src/stream.c, which checks at
 * compile time that it fits.
 */
#ifndef MPA_STREAM_IMPL_H
#define MPA_STREAM_IMPL_H

#define MPA_STREAM_STORAGE 9216

struct mpa_stream {
    union {
        uint64_t u64[MPA_STREAM_STORAGE / 8];
        void *ptr;
        double dbl;
    } opaque;
};

#endif

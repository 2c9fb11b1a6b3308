"""The Litestar HTTP API: decode a request struct, call one use case, encode a response struct."""

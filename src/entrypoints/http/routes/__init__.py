"""Route handlers by area; each decodes its input, calls one use case and encodes a struct."""

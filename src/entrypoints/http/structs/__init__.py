"""msgspec Structs for request and response bodies, with constructors from domain types."""

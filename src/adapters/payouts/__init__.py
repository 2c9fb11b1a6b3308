"""Bank files of commission payouts: SEPA credit transfers (pain.001), written atomically."""

from adapters.payouts.files import write_atomically
from adapters.payouts.sepa import SEPA_SCHEMA, SepaCreditTransfers, SepaDebtor

__all__ = ["SEPA_SCHEMA", "SepaCreditTransfers", "SepaDebtor", "write_atomically"]

"""vtm_sim: the Vampire: The Masquerade (V20) combat rules engine.

The engine is pure Python plus numpy; it imports neither gymnasium nor torch.
"""

__version__ = "0.1.0"

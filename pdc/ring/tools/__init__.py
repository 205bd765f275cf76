"""Tools on top of the ring API: ``pdc bench ring`` (``bench`` and its parts) and
``pdc stress`` (``stress``). Nothing in the rest of ``pdc.ring`` imports them.
"""

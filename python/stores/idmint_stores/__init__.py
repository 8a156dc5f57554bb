"""The stores add-on of idmint: its native module with every store. Import ``idmint``, never
this: ``import idmint`` loads this module's ``_idmint`` instead of its own when this is
installed (``pip install 'idmint[stores]'``)."""

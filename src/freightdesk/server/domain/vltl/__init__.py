"""Volume LTL: rate quotes and dispatch.

- `units.py`: the request's freight as lines in pounds and inches, whatever units it used; the
  units a carrier rates in; the linear feet the freight takes.
- `rules.py`: rules of a request beyond its model: who may quote, addresses, carrier accounts,
  and what a dispatch must carry (locations with contacts, windows, items, identifiers).
- `quoting.py`: quotes priced at once by the rate engine for every carrier of the account group.
- `dispatch.py`: a dispatch to one carrier account, answered with the carrier's numbers, and the
  tracked shipment it creates.
"""

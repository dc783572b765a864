"""What the guide knows and says: facts measured from records, the chapters' facts and tables, the
explain blocks that pick a page's text by outcome, the gym, the messages index and the release matrix.

Imports only from fieldguide.run; never from the site or the tools.
"""

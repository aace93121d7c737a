"""`python -m meeple.web [options]`: the same as `meeple serve [options]`."""

from meeple.web import main

raise SystemExit(main())

"""`python -m autograph`: the `autograph` command without the console script."""

import sys

from autograph.cli import main

sys.exit(main())

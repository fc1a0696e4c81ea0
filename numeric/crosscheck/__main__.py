"""``python -m numeric.crosscheck``: see :func:`numeric.crosscheck.main`."""

import sys

from numeric.crosscheck import main

sys.exit(main())

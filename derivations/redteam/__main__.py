import sys

from derivations.redteam import main

sys.exit(main())

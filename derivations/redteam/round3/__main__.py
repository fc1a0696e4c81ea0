import sys

from derivations.redteam.round3.run import main

sys.exit(main())

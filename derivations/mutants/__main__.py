import sys

from derivations.mutants import main

sys.exit(main())

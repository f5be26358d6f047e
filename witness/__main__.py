import sys

from witness.cli import main

sys.exit(main())

#include "cmd/cmd.h"
int cmd_report(int argc, char **argv)
{
    return cmd_not_yet(argc, argv);
}

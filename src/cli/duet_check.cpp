// duet-check: checks recorded histories for linearizability (the command line is
// duet::history::cli_main, src/cli/cli_main.cpp; a checker with models of your own calls it too).
#include "duet/history_model.hpp"

int main(int argc, char** argv) { return duet::history::cli_main(argc, argv); }

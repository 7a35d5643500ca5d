// aoe-ddt: throughput, latency and integrity tester for AoE targets (and any block
// device or file). See man/aoe-ddt.8.
#include "ddt/ddt.hpp"

int main(int argc, char** argv)
{
    return aoe::ddt::main(argc, argv);
}

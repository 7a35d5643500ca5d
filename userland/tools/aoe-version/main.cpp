// aoe-version: versions of the tools, the installed and the running aoe
// module. See man/aoe-version.8.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "admin/admin.hpp"
#include "core/cli.hpp"
#include "stat/format.hpp"

namespace po = boost::program_options;

int main(int argc, char** argv)
{
    aoe::cli::Tool tool("aoe-version", "[--json] [-v]",
                        "Show the aoekit tools version, the version of the installed aoe module\n"
                        "(modinfo) and of the loaded one (netlink or sysfs).");
    bool json = false;
    tool.options().add_options()("json", po::bool_switch(&json), "print JSON");

    return tool.run(argc, argv, [&] {
        aoe::ModuleVersions v = aoe::lookup_module_versions();
        if (json) {
            aoe::Json j = {{"tools", AOE_VERSION},
                           {"installed_module", aoe::json_or_null(v.installed)},
                           {"installed_module_path", aoe::json_or_null(v.installed_path)},
                           {"running_module", aoe::json_or_null(v.running)},
                           {"running_module_source",
                            aoe::json_or_null(v.running_source)}};
            std::cout << aoe::dump_json(j) << '\n';
        } else {
            std::cout << fmt::format("aoekit tools:      {}\n", AOE_VERSION);
            std::cout << fmt::format("installed module:  {}{}\n", v.installed.value_or("none"),
                                     v.installed_path ? fmt::format(" ({})", *v.installed_path) : "");
            std::cout << fmt::format("running module:    {}\n",
                                     v.running.value_or("not loaded"));
        }
        return aoe::cli::kOk;
    });
}

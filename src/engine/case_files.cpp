#include "engine/case_files.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <unistd.h>

#include "report/report.hpp"
#include "report/token.hpp"

namespace duet::detail {

namespace fs = std::filesystem;

CaseFile read_case_file(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw std::invalid_argument(path + " is a directory, not a case file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  CaseFile f;
  f.path = path;
  f.bytes = text.str();
  if (f.bytes.empty()) throw std::invalid_argument(path + " is empty: a case file holds a replay token or a fuzzer's input");
  if (f.bytes.rfind("duet1.", 0) == 0) {
    f.is_token = true;
    f.token = f.bytes;
    while (!f.token.empty() && (f.token.back() == '\n' || f.token.back() == '\r' || f.token.back() == ' ' || f.token.back() == '\t'))
      f.token.pop_back();
    f.bytes.clear();
  }
  return f;
}

std::vector<std::string> regression_files(const std::string& dir, const std::string& name) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw std::invalid_argument("DUET_REGRESSIONS=" + dir + " is not a directory");
  const fs::path mine = fs::path(dir) / identifier(name);
  std::vector<std::string> files;
  if (!fs::is_directory(mine, ec)) return files;
  for (const auto& entry : fs::directory_iterator(mine, ec))
    if (entry.is_regular_file(ec) && entry.path().filename().string().find(".part") == std::string::npos)
      files.push_back(entry.path().string());
  if (ec) throw std::invalid_argument("cannot list " + mine.string() + ": " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

std::string save_regression(const std::string& dir, const std::string& name, const std::string& token) {
  const ReplayRecord rec = decode_token(token);
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the choices (or the case seed)
  auto mix = [&h](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) h = (h ^ ((v >> (8 * i)) & 0xff)) * 1099511628211ull;
  };
  mix(rec.spec_id);
  if (rec.case_seed) mix(*rec.case_seed);
  for (std::uint64_t c : rec.choices) mix(c);
  char file[40];
  std::snprintf(file, sizeof file, "%016llx.token", static_cast<unsigned long long>(h));
  const fs::path folder = fs::path(dir) / identifier(name);
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw std::runtime_error("cannot create " + folder.string() + ": " + ec.message());
  const fs::path path = folder / file;
  if (fs::exists(path, ec)) return path.string();
  const fs::path part = fs::path(path).concat(".part" + std::to_string(::getpid()));
  {
    std::ofstream out(part);
    out << token << "\n";
    if (!out) throw std::runtime_error("cannot write " + part.string());
  }
  fs::rename(part, path, ec);
  if (ec) throw std::runtime_error("cannot write " + path.string() + ": " + ec.message());
  return path.string();
}

}  // namespace duet::detail
